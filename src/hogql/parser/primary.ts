import { atSelectAfterParen, parseArray, parseBrace, parseParenthesized } from './brackets.js';
import { P, parseExpr } from './expressions.js';
import { parseFunctionCall } from './functions.js';
import { lambdaAhead, parenLambdaAt, parseArrowLambda } from './lambdas.js';
import { atNumber, parseNumber } from './literals.js';
import type { Node, Parser } from './parser.js';
import { parseKeywordForm } from './special-forms.js';
import { parseSpread, parseStar } from './star.js';
import { parseTag } from './tags.js';
import { parseTemplateString } from './templates.js';
import { isIdentifierLike, T } from './tokens.js';

/** An operand: literal, identifier, call, lambda, bracketed form or prefix operator. */
export function parsePrimary(p: Parser): Node {
  const first = p.pos;
  switch (p.t) {
    case T.DASH: {
      if (atNumber(p)) return parseNumber(p);
      p.pos++;
      const right = parseExpr(p, P.NEGATE);
      return p.span(
        { node: 'ArithmeticOperation', left: { node: 'Constant', value: 0 }, right, op: '-' },
        first,
      );
    }
    case T.PLUS:
    case T.DECIMAL:
    case T.OCTAL:
    case T.HEX:
    case T.BINARY:
    case T.FLOAT:
    case T.INF:
    case T.NAN:
    case T.OCTAL_PREFIX:
    case T.DOT:
      return parseNumber(p);
    case T.STRING:
      p.pos++;
      return p.span({ node: 'Constant', value: p.stringAt(first) }, first);
    case T.NULL:
      p.pos++;
      return p.span({ node: 'Constant', value: null }, first);
    case T.LPAREN:
      return parseParenthesized(p);
    case T.LBRACKET:
      return parseArray(p, first);
    case T.LBRACE:
      return parseBrace(p);
    case T.ASTERISK:
      return p.peek() === T.COLUMNS ? parseSpread(p) : parseStar(p, first, []);
    case T.HASH: {
      p.pos++;
      const index = p.expect(T.DECIMAL, 'a column number');
      return p.span({ node: 'PositionalRef', index: Number(p.text(index)) }, first);
    }
    case T.TEMPLATE_START:
      return parseTemplateString(p);
    case T.TAG_OPEN:
      return parseTag(p);
    case T.NOT:
      if (p.peek() !== T.LPAREN && startsOperand(p.peek()) && !notIsName(p)) {
        p.pos++;
        const expr = parseExpr(p, P.NOT);
        return p.span({ node: 'Not', expr }, first);
      }
      if (p.peek() === T.LPAREN && (atSelectAfterParen(p) || parenLambdaAt(p, p.pos + 1))) {
        p.pos++;
        const expr = parseExpr(p, P.NOT);
        return p.span({ node: 'Not', expr }, first);
      }
      break;
  }
  if (!p.atIdentifier()) throw p.unexpected('an expression');
  return parseKeywordForm(p) ?? parseIdentifierExpr(p);
}

/** Keywords that, right after NOT, make "not" a column name: `not between a and b`, `not.x`. */
const INFIX_KEYWORDS: ReadonlySet<number> = new Set([
  T.BETWEEN,
  T.AND,
  T.OR,
  T.IS,
  T.AS,
  T.LIKE,
  T.ILIKE,
  T.IN,
]);

function notIsName(p: Parser): boolean {
  const next = p.peek();
  if (next === T.DOT) return p.peek(2) !== T.DECIMAL && p.peek(2) !== T.OCTAL;
  // `not and.x` negates a column called "and", `not as` a column called "as"
  if (next === T.AS) return isIdentifierLike(p.peek(2)) || p.peek(2) === T.STRING;
  if (INFIX_KEYWORDS.has(next)) return p.peek(2) !== T.DOT;
  return JOIN_WORDS.has(next) && (p.peek(2) === T.JOIN || JOIN_WORDS.has(p.peek(2)));
}

/** Words that start a join (`… on not full outer join t`): "not" is a column there. */
const JOIN_WORDS: ReadonlySet<number> = new Set([
  T.FULL,
  T.LEFT,
  T.RIGHT,
  T.INNER,
  T.OUTER,
  T.CROSS,
  T.ANY,
  T.ALL,
  T.ASOF,
  T.SEMI,
  T.ANTI,
  T.NATURAL,
  T.POSITIONAL,
]);

/** Identifier-led operands: lambdas, named arguments, calls and fields. */
function parseIdentifierExpr(p: Parser): Node {
  const first = p.pos;
  const next = p.peek();
  if (next === T.ARROW || (next === T.COMMA && lambdaAhead(p, p.pos)))
    return parseArrowLambda(p, first, false);
  if (next === T.COLONEQUALS) {
    const name = p.identifier();
    p.pos++;
    return { node: 'NamedArgument', name, value: parseExpr(p) };
  }
  if (next === T.LPAREN) return parseFunctionCall(p);
  const chain: string[] = [p.identifier()];
  while (p.at(T.DOT)) {
    const after = p.peek();
    if (after === T.ASTERISK) return parseStar(p, first, chain);
    if (!isIdentifierLike(after)) break;
    p.pos++;
    chain.push(p.identifier());
  }
  if (chain.length === 1 && p.type[first] === T.IDENT) {
    const lower = (chain[0] as string).toLowerCase();
    if (lower === 'true' || lower === 'false')
      return p.span({ node: 'Constant', value: lower === 'true' }, first);
  }
  return p.span({ node: 'Field', chain }, first);
}

/** Can this token begin an operand? Used to tell `NOT x` from a column called `not`. */
function startsOperand(t: number): boolean {
  if (isIdentifierLike(t)) return true;
  switch (t) {
    case T.DASH:
    case T.PLUS:
    case T.DECIMAL:
    case T.OCTAL:
    case T.HEX:
    case T.BINARY:
    case T.FLOAT:
    case T.INF:
    case T.NAN:
    case T.DOT:
    case T.STRING:
    case T.NULL:
    case T.LPAREN:
    case T.LBRACKET:
    case T.LBRACE:
    case T.ASTERISK:
    case T.HASH:
    case T.TEMPLATE_START:
    case T.TAG_OPEN:
      return true;
  }
  return false;
}

export { startsOperand };
