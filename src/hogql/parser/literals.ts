import type { Node, Parser } from './parser.js';
import { isIdentifierLike, T } from './tokens.js';

/**
 * Constants that were written as floats (`1.0`, `1e3`). JSON has one number type, so a `1.0`
 * constant is indistinguishable from `1` once it is an object; the printer needs to know, so the
 * parser records float constants here instead of adding a field the reference AST does not have.
 */
const floats = new WeakSet<Node>();

export const isFloatConstant = (node: Node): boolean => floats.has(node);

const INT64_MAX = 9223372036854775807n;

const startsNumber = (type: number) =>
  type === T.DECIMAL ||
  type === T.OCTAL ||
  type === T.HEX ||
  type === T.BINARY ||
  type === T.FLOAT ||
  type === T.INF ||
  type === T.NAN ||
  type === T.OCTAL_PREFIX;

/** Does a number literal (with an optional sign) start at the current token? */
export function atNumber(p: Parser): boolean {
  let type = p.t;
  let ahead = 1;
  if (type === T.DASH || type === T.PLUS) {
    type = p.peek();
    ahead = 2;
  }
  if (startsNumber(type)) return true;
  const next = p.peek(ahead);
  return type === T.DOT && (next === T.DECIMAL || next === T.OCTAL);
}

/** numberLiteral: [+-] (float | decimal | octal | hex | binary | inf | nan), as a Constant. */
export function parseNumber(p: Parser): Node {
  const first = p.pos;
  const negative = p.t === T.DASH;
  if (negative || p.t === T.PLUS) p.pos++;
  const type = p.t;
  const tok = p.pos++;
  let text = p.text(tok);
  let float = false;
  let value: number | string;
  let special = false;
  switch (type) {
    case T.INF:
      value = negative ? '-Infinity' : 'Infinity';
      special = true;
      break;
    case T.NAN:
      value = 'NaN';
      special = true;
      break;
    case T.OCTAL_PREFIX:
      p.defer(
        p.error(
          `HogQL does not support \`0o\`-prefixed octal integer literals; got \`${text}\`. Use a plain decimal literal instead.`,
          tok,
        ),
      );
      value = 0;
      break;
    case T.FLOAT:
      float = true;
      value = parseFloatText(text);
      break;
    case T.DOT: {
      // .5
      if (p.t !== T.DECIMAL && p.t !== T.OCTAL) throw p.unexpected('a number');
      float = true;
      text = `0.${p.text(p.pos++)}`;
      value = Number(text);
      break;
    }
    case T.DECIMAL:
      // 1.5 and 1. are three and two tokens: t.1.2 must stay a tuple access
      if (p.t === T.DOT) {
        const after = p.peek();
        if (after === T.DECIMAL || after === T.OCTAL) {
          float = true;
          text = `${text}.${p.text(p.pos + 1)}`;
          p.pos += 2;
        } else if (!isIdentifierLike(after) || operatorKeywordAhead(p)) {
          float = true;
          p.pos++;
        }
      }
      value = float ? Number(text) : integer(text, negative);
      break;
    case T.OCTAL:
    case T.HEX:
    case T.BINARY:
      value = integer(text, negative);
      break;
    default:
      throw p.unexpected('a number');
  }
  if (typeof value === 'number') {
    if (negative) value = float ? -value : value === 0 ? 0 : -value;
    if (!Number.isFinite(value)) {
      value = Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
      special = true;
    }
  } else if (!special) {
    special = true; // an integer beyond int64, kept as written
  }
  const node: Node = special
    ? { node: 'Constant', value, value_type: 'number' }
    : { node: 'Constant', value };
  if (float) floats.add(node);
  return p.span(node, first);
}

/**
 * After `digits .`, a name makes a property access (`1.a`) but a keyword usually ends the number
 * (`5. in x`, `order by 5. desc`, `interval 5. day`): the reference parser picks whichever reading
 * lets the rest parse, and keywords rarely name properties. A keyword that is itself followed by
 * an access (`1.key.x`, `1.key[0]`) stays a property.
 */
function operatorKeywordAhead(p: Parser): boolean {
  const word = p.peek();
  if (word === T.IDENT || word === T.QUOTED_IDENT) return false;
  const next = p.peek(2);
  // at the very end of the input only the property reading can be complete, except for the
  // direction of an ORDER BY item
  const direction = word === T.ASCENDING || word === T.DESC || word === T.DESCENDING;
  if (p.pos + 2 >= p.type.length - 1) return direction && p.orderItems > 0;
  if (next === T.DOT) return false;
  return next !== T.LBRACKET || ENDS_OPERAND.has(word);
}

/** Keywords that cannot continue `5.` as a property when followed by '[': `prewhere 5. where [x]`. */
const ENDS_OPERAND: ReadonlySet<number> = new Set([
  T.FROM,
  T.WHERE,
  T.PREWHERE,
  T.HAVING,
  T.QUALIFY,
  T.THEN,
  T.ELSE,
  T.WHEN,
  T.END,
  T.AND,
  T.OR,
  T.NOT,
  T.IN,
  T.LIKE,
  T.ILIKE,
  T.ON,
  T.BY,
  T.ARRAY,
]);

/** An integer literal's value, or its text when it does not fit in a signed 64-bit integer. */
function integer(text: string, negative: boolean): number | string {
  if (text.length < 16) return Number(text);
  const big = BigInt(text.toLowerCase());
  if (big > INT64_MAX + (negative ? 1n : 0n)) return negative ? `-${text}` : text;
  return Number(big);
}

function parseFloatText(text: string): number {
  const lower = text.toLowerCase();
  if (!lower.startsWith('0x')) return Number(text);
  // hex float: mantissa in hex, binary exponent after p
  const p = lower.indexOf('p');
  const mantissa = lower.slice(2, p);
  const dot = mantissa.indexOf('.');
  const digits = dot === -1 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  const fractionDigits = dot === -1 ? 0 : mantissa.length - dot - 1;
  const exponent = Number(lower.slice(p + 1)) - 4 * fractionDigits;
  return Number.parseInt(digits || '0', 16) * 2 ** exponent;
}
