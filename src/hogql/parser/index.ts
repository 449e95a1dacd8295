import { parseExpr as parseColumnExpr } from './expressions.js';
import { parseOrderExpr as parseOrderExpression } from './order.js';
import { type Node, Parser } from './parser.js';
import { parseSelectSet } from './select-set.js';
import { parseTag } from './tags.js';
import { T } from './tokens.js';

export { isFloatConstant } from './literals.js';
export { MAX_AST_DEPTH, MAX_DEPTH, type Node } from './parser.js';
export type { Position } from './source.js';

/**
 * HogQL parser producing the same AST as `@posthog/hogql-parser` (as plain objects, positions
 * included). Every function throws HogQLSyntaxError on invalid input, and HogQLQueryError on
 * syntax HogQL accepts but does not support (SETTINGS, DATE '…', …), as the reference parser's
 * NotImplementedError.
 */

/** A SELECT query, a set of them (UNION …), a {placeholder} or a HogQLX tag; one trailing ';'. */
export function parseSelect(text: string): Node {
  const p = new Parser(text);
  const node = p.at(T.TAG_OPEN) ? parseTag(p) : parseSelectSet(p);
  p.accept(T.SEMICOLON);
  if (!p.at(T.EOF)) throw p.unexpected();
  p.finish();
  return node;
}

/** One expression. */
export function parseExpr(text: string): Node {
  const p = new Parser(text);
  const node = parseColumnExpr(p);
  if (!p.at(T.EOF)) throw p.unexpected();
  p.finish();
  return node;
}

/**
 * One ORDER BY item: expression with ASC/DESC and the rest. Like the reference parser, it reads
 * one item and ignores whatever follows it (`a desc, b` is `a desc`).
 */
export function parseOrderExpr(text: string): Node {
  const p = new Parser(text);
  p.orderItems++;
  const node = parseOrderExpression(p);
  p.finish();
  return node;
}
