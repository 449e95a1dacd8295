import { malformed, tooDeep } from './errors.js';
import { type Steps, TICK } from './steps.js';

/** Byte offsets of one JSON value in the payload: `[start, end)`. */
export interface Span {
  start: number;
  end: number;
}

/** An object's members (`keys[i]` names `values[i]`) or an array's elements, and where it ends. */
export interface Container {
  kind: 'object' | 'array';
  keys: Span[];
  values: Span[];
  end: number;
  /** The member named `splitKey`, when it is a list: scanned into its elements in the same pass. */
  split?: Container;
}

export interface ScanOptions {
  /** Deepest nesting allowed in the whole document (the root container is level 1). */
  maxDepth: number;
  /** Levels above the container scanned (0 for the root). */
  baseDepth?: number;
  /** For arrays: the most elements allowed; past it `tooMany()` is thrown before reading on. */
  maxElements?: number;
  tooMany?: () => Error;
  /**
   * An object member whose list value is split too (`batch`), its elements counted against
   * `maxElements` as they are found: a body of 300 000 events stops at the limit's first excess
   * instead of being walked whole first.
   */
  splitKey?: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
/** Scanning pauses (a `tick`) at least this often. */
const TICK_BYTES = 1 << 16;

const isSpace = (b: number | undefined) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

export function skipSpace(buf: Uint8Array, i: number): number {
  while (isSpace(buf[i])) i++;
  return i;
}

/** From an opening quote to just past its closing quote; `indexOf` finds quotes natively. */
export function skipString(buf: Buffer, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = buf.indexOf(QUOTE, from);
    if (q < 0) throw malformed('unterminated string in JSON');
    let slashes = 0;
    while (buf[q - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/**
 * Splits the JSON object or array at `start` into its members without parsing them, so that each
 * member can be parsed on its own (one event at a time, pausing between them) and a payload of
 * any size never becomes one `JSON.parse` that holds the event loop. On the way it checks the
 * container's own punctuation and the nesting depth of everything inside (the members' own
 * syntax is checked when they are parsed), and stops counting elements at `maxElements`.
 */
export function* scanContainer(buf: Buffer, start: number, options: ScanOptions): Steps<Container> {
  const { maxDepth } = options;
  const maxElements = options.maxElements ?? Number.POSITIVE_INFINITY;
  const n = buf.length;
  let i = skipSpace(buf, start);
  const open = buf[i];
  if (open !== LBRACE && open !== LBRACKET) throw malformed('invalid JSON (expected an object or a list)');
  const isObject = open === LBRACE;
  const close = isObject ? RBRACE : RBRACKET;
  const level = (options.baseDepth ?? 0) + 1;
  if (level > maxDepth) throw tooDeep(maxDepth);
  const keys: Span[] = [];
  const values: Span[] = [];
  let split: Container | undefined;
  const splitKey = options.splitKey === undefined ? undefined : JSON.stringify(options.splitKey);
  let splitting = false;
  let tick = i + TICK_BYTES;
  i++;
  const unexpected = (at: number) =>
    malformed(
      at >= n ? 'invalid JSON (unexpected end of data)' : `invalid JSON (unexpected character at byte ${at})`,
    );

  i = skipSpace(buf, i);
  if (buf[i] === close) return { kind: isObject ? 'object' : 'array', keys, values, end: i + 1 };
  for (;;) {
    i = skipSpace(buf, i);
    if (isObject) {
      if (buf[i] !== QUOTE) throw unexpected(i);
      const keyStart = i;
      i = skipString(buf, i);
      keys.push({ start: keyStart, end: i });
      splitting = splitKey !== undefined && buf.toString('latin1', keyStart, i) === splitKey;
      i = skipSpace(buf, i);
      if (buf[i] !== COLON) throw unexpected(i);
      i = skipSpace(buf, i + 1);
    } else if (values.length >= maxElements) {
      throw options.tooMany?.() ?? malformed('too many elements');
    }
    const valueStart = i;
    const b = buf[i];
    if (splitting && b === LBRACKET) {
      split = yield* scanContainer(buf, i, {
        maxDepth,
        baseDepth: level,
        ...(options.maxElements === undefined ? {} : { maxElements: options.maxElements }),
        ...(options.tooMany ? { tooMany: options.tooMany } : {}),
      });
      i = split.end;
      tick = i + TICK_BYTES;
    } else if (b === QUOTE) {
      i = skipString(buf, i);
    } else if (b === LBRACE || b === LBRACKET) {
      // Walk to the matching bracket, counting depth; strings are skipped whole.
      let depth = level + 1;
      if (depth > maxDepth) throw tooDeep(maxDepth);
      i++;
      while (depth > level) {
        if (i >= n) throw unexpected(i);
        const c = buf[i] as number;
        if (c === QUOTE) {
          i = skipString(buf, i);
          continue;
        }
        if (c === LBRACE || c === LBRACKET) {
          if (++depth > maxDepth) throw tooDeep(maxDepth);
        } else if (c === RBRACE || c === RBRACKET) {
          depth--;
        }
        i++;
        if (i >= tick) {
          yield TICK;
          tick = i + TICK_BYTES;
        }
      }
    } else {
      // A number, true, false or null: up to the next delimiter (JSON.parse judges it later).
      while (i < n && !isSpace(buf[i]) && buf[i] !== COMMA && buf[i] !== close) i++;
      if (i === valueStart) throw unexpected(i);
    }
    values.push({ start: valueStart, end: i });
    if (i >= tick) {
      yield TICK;
      tick = i + TICK_BYTES;
    }
    i = skipSpace(buf, i);
    if (buf[i] === COMMA) {
      i++;
      continue;
    }
    if (buf[i] === close) {
      return { kind: isObject ? 'object' : 'array', keys, values, end: i + 1, ...(split ? { split } : {}) };
    }
    throw unexpected(i);
  }
}
