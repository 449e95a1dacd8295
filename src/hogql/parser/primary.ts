import { P, parseExpr } from './expressions.js';
import { parseFunctionCall } from './functions.js';
import { parseExprList } from './lists.js';
import { atNumber, parseNumber } from './literals.js';
import type { Node, Parser } from './parser.js';
import { parseSelectSet } from './select-set.js';
import { attempt, parseKeywordForm } from './special-forms.js';
import { parseColumnsParenthesized, parseSpread, parseStar } from './star.js';
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
  // `not and.x` negates a column called "and"
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

/** Does `( select …` follow (the cursor being on the token before the parenthesis)? */
function atSelectAfterParen(p: Parser): boolean {
  let i = 1;
  while (p.peek(i) === T.LPAREN) i++;
  const t = p.peek(i);
  return t === T.SELECT || t === T.WITH;
}

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

/** Is `ident (, ident)* ,? ->` ahead, starting at token `from`? */
function lambdaAhead(p: Parser, from: number): boolean {
  let i = from;
  for (;;) {
    if (!isIdentifierLike(p.type[i] as number)) return false;
    i++;
    if (p.type[i] === T.ARROW) return true;
    if (p.type[i] !== T.COMMA) return false;
    i++;
    if (p.type[i] === T.ARROW) return true;
  }
}

/** `x -> body`, `x, y -> body` and `(x, y) -> body`; the body is a full expression. */
function parseArrowLambda(p: Parser, first: number, parenthesized: boolean): Node {
  const args: string[] = [];
  if (parenthesized) p.pos++;
  while (!p.at(T.ARROW) && !p.at(T.RPAREN)) {
    args.push(p.identifier());
    if (!p.accept(T.COMMA)) break;
  }
  if (parenthesized) p.expect(T.RPAREN, "')'");
  p.expect(T.ARROW, "'->'");
  const body = p.pos;
  const expr = p.at(T.LBRACE) ? attempt(p, () => parseExpr(p)) : parseExpr(p);
  // `x -> { return x }` has a Hog block as its body, which only the Hog program parser knows
  if (expr === null) throw p.error('Lambdas with a block body (Hog code) are not supported in HogQL', body);
  return p.span({ node: 'Lambda', args, expr }, first);
}

/** `( … )`: a subquery, a lambda's parameters, a tuple, `(* EXCLUDE …)` or just grouping. */
function parseParenthesized(p: Parser): Node {
  const first = p.pos;
  const next = p.peek();
  if (next === T.RPAREN && p.peek(2) === T.ARROW) return parseArrowLambda(p, first, true);
  if (isIdentifierLike(next) && parenLambdaAt(p, p.pos)) {
    return parseArrowLambda(p, first, true);
  }
  if (next === T.ASTERISK && (p.peek(2) === T.EXCLUDE || p.peek(2) === T.REPLACE)) {
    return parseColumnsParenthesized(p);
  }
  if (atSelectAfterParen(p)) {
    const saved = p.pos;
    const deferred = p.deferred;
    try {
      p.pos++;
      const query = parseSelectSet(p);
      p.expect(T.RPAREN, "')'");
      return query;
    } catch (err) {
      if (!p.recoverable(err)) throw err;
      p.deferred = deferred;
      // `((select 1) + 1)` groups an expression starting with a subquery, and `(select(1))` calls
      // a function named select: when the query does not parse, the expression may
      p.pos = saved;
      const expr = attempt(p, () => parseParenthesizedExpr(p, first));
      if (expr === null) throw err;
      return expr;
    }
  }
  return parseParenthesizedExpr(p, first);
}

function parseParenthesizedExpr(p: Parser, first: number): Node {
  p.pos++;
  const items = parseExprList(p);
  const trailing = p.type[p.pos - 1] === T.COMMA;
  p.expect(T.RPAREN, "')'");
  if (items.length === 1 && !trailing) return items[0] as Node;
  return p.span({ node: 'Tuple', exprs: items }, first);
}

/** `(a, b) -> …` at token `open`: identifiers only, then ')' and '->'. */
function parenLambdaAt(p: Parser, open: number): boolean {
  if (p.type[open + 1] === T.RPAREN) return p.type[open + 2] === T.ARROW;
  let i = open + 1;
  for (;;) {
    if (!isIdentifierLike(p.type[i] as number)) return false;
    i++;
    if (p.type[i] === T.COMMA) {
      i++;
      if (p.type[i] === T.RPAREN) return p.type[i + 1] === T.ARROW;
      continue;
    }
    return p.type[i] === T.RPAREN && p.type[i + 1] === T.ARROW;
  }
}

export function parseArray(p: Parser, first: number): Node {
  p.expect(T.LBRACKET, "'['");
  const exprs = p.at(T.RBRACKET) ? [] : parseExprList(p);
  p.expect(T.RBRACKET, "']'");
  return p.span({ node: 'Array', exprs }, first);
}

/** `{expr}` is a placeholder, `{}` and `{k: v, …}` are dictionaries. */
function parseBrace(p: Parser): Node {
  const first = p.pos++;
  if (p.accept(T.RBRACE)) return p.span({ node: 'Dict', items: [] }, first);
  const key = parseExpr(p);
  if (p.accept(T.RBRACE)) return p.span({ node: 'Placeholder', expr: key }, first);
  const items: Node[][] = [];
  let k = key;
  for (;;) {
    p.expect(T.COLON, "':'");
    items.push([k, parseExpr(p)]);
    if (!p.accept(T.COMMA) || p.at(T.RBRACE)) break;
    k = parseExpr(p);
  }
  p.expect(T.RBRACE, "'}'");
  return p.span({ node: 'Dict', items }, first);
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
