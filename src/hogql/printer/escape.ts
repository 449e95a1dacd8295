import { HogQLQueryError } from '../errors.js';

/**
 * The one place user text becomes SQL text. Strings are normally bound as query parameters;
 * these functions cover identifiers and the rare literal we render (timezone names, and strings
 * when inline rendering is chosen). Every byte outside printable ASCII is written as `\xHH`, so
 * the output is plain ASCII whatever the input holds (NUL, newlines, invalid UTF-8).
 */
const SIMPLE_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function escapeBytes(bytes: Uint8Array, quote: number): string {
  let out = '';
  for (const b of bytes) {
    if (b === quote || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/** A ClickHouse string literal whose value is exactly `value`'s UTF-8 bytes (or the given bytes). */
export function escapeString(value: string | Uint8Array): string {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  return `'${escapeBytes(bytes, 0x27)}'`;
}

/** An identifier: bare when plainly safe, else backquoted with the same escaping. */
export function escapeIdentifier(name: string): string {
  // ClickHouse has no empty identifier: `` would be a syntax error (a 500) at the engine.
  if (name === '') throw new HogQLQueryError('Names cannot be empty');
  if (SIMPLE_IDENTIFIER.test(name) && !KEYWORDS.has(name.toLowerCase())) return name;
  return `\`${escapeBytes(Buffer.from(name, 'utf8'), 0x60)}\``;
}

/** Words that would change the query's meaning if printed bare. */
const KEYWORDS = new Set(
  'all and anti any array as asc asof between by case cast cross desc distinct else end except false final format from full global group having if ilike in inner intersect interval into is join left like limit not null offset on or order outer over prewhere qualify right sample select semi settings then true union using when where window with'.split(
    ' ',
  ),
);
