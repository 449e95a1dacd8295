import { parseExpr } from './expressions.js';
import { parseOrderList } from './order.js';
import type { Node, Parser } from './parser.js';
import { parseSelectStmt } from './select.js';
import { T } from './tokens.js';
import { parseWithClause } from './with.js';

/** Does a query start here (SELECT, or WITH that is not a column called "with")? */
export function atSelect(p: Parser): boolean {
  const next = p.peek();
  if (p.at(T.SELECT)) return next !== T.RPAREN && next !== T.COMMA && next !== T.EOF;
  return p.at(T.WITH) && next !== T.RPAREN && next !== T.COMMA && next !== T.EOF && next !== T.AS;
}

/**
 * selectSetStmt: queries joined by UNION / INTERSECT / EXCEPT, then an optional ORDER BY and
 * LIMIT for the whole set. A single query is returned as itself.
 */
export function parseSelectSet(p: Parser): Node {
  p.enter();
  const first = p.pos;
  const initial = parseSelectStmtWithParens(p);
  const subsequent: Node[] = [];
  for (;;) {
    const op = parseSetOperator(p);
    if (op === null) break;
    subsequent.push({ node: 'SelectSetNode', select_query: parseSelectStmtWithParens(p), set_operator: op });
  }
  let result: Node =
    subsequent.length === 0
      ? initial
      : { node: 'SelectSetQuery', initial_select_query: initial, subsequent_select_queries: subsequent };
  if (p.at(T.ORDER) && p.peek() === T.BY) {
    // the reference AST drops a set-level ORDER BY; it is parsed and discarded the same way
    p.pos += 2;
    parseOrderList(p);
  }
  parseSetLimit(p, result);
  if (subsequent.length > 0) result = p.span(result, first);
  p.leave();
  return result;
}

/** UNION [ALL|DISTINCT] [BY NAME], INTERSECT [ALL|DISTINCT] [BY NAME], EXCEPT [ALL] [BY NAME]. */
function parseSetOperator(p: Parser): string | null {
  let op: string;
  if (p.at(T.UNION)) {
    p.pos++;
    if (p.accept(T.ALL)) op = 'UNION ALL';
    else {
      p.accept(T.DISTINCT);
      op = 'UNION DISTINCT';
    }
  } else if (p.at(T.INTERSECT)) {
    p.pos++;
    op = p.accept(T.ALL) ? 'INTERSECT ALL' : p.accept(T.DISTINCT) ? 'INTERSECT DISTINCT' : 'INTERSECT';
  } else if (p.at(T.EXCEPT)) {
    p.pos++;
    op = p.accept(T.ALL) ? 'EXCEPT ALL' : 'EXCEPT';
  } else {
    return null;
  }
  if (p.at(T.BY) && p.peek() === T.NAME) {
    p.pos += 2;
    op += ' BY NAME';
  }
  return op;
}

/** LIMIT n [PERCENT] [, m] [WITH TIES] | LIMIT n [WITH TIES] OFFSET m | OFFSET m, after a set. */
function parseSetLimit(p: Parser, target: Node): void {
  const settable = target.node === 'SelectQuery' || target.node === 'SelectSetQuery';
  if (p.accept(T.OFFSET)) {
    const offset = parseExpr(p);
    if (settable) target.offset = offset;
    return;
  }
  if (!p.accept(T.LIMIT)) return;
  const limit = parseExpr(p);
  if (p.at(T.PERCENT)) throw p.unexpected();
  let offset: Node | null = null;
  let withTies = false;
  if (p.accept(T.COMMA)) offset = parseExpr(p);
  if (p.at(T.WITH) && p.peek() === T.TIES) {
    p.pos += 2;
    withTies = true;
  }
  if (offset === null && p.accept(T.OFFSET)) offset = parseExpr(p);
  if (!settable) return;
  target.limit = limit;
  if (offset !== null) target.offset = offset;
  if (withTies) target.limit_with_ties = true;
}

/** A query, a parenthesised set, WITH … (set), or a {placeholder}. */
export function parseSelectStmtWithParens(p: Parser): Node {
  if (p.at(T.SELECT)) return parseSelectStmt(p, null, p.pos);
  if (p.at(T.WITH)) {
    const first = p.pos;
    const ctes = parseWithClause(p);
    if (p.at(T.SELECT)) return parseSelectStmt(p, ctes, first);
    p.expect(T.LPAREN, "SELECT or '('");
    const inner = parseSelectSet(p);
    p.expect(T.RPAREN, "')'");
    attachCtes(inner, ctes);
    return inner;
  }
  if (p.at(T.LPAREN)) {
    p.pos++;
    const inner = parseSelectSet(p);
    p.expect(T.RPAREN, "')'");
    return inner;
  }
  if (p.at(T.LBRACE)) {
    const first = p.pos++;
    const expr = parseExpr(p);
    p.expect(T.RBRACE, "'}'");
    return p.span({ node: 'Placeholder', expr }, first);
  }
  throw p.unexpected('SELECT');
}

/** WITH … (a set): the CTEs go to the leftmost query of the set. */
function attachCtes(query: Node, ctes: Node[]): void {
  let target: Node = query;
  while (target.node === 'SelectSetQuery') target = target.initial_select_query as Node;
  if (target.node === 'SelectQuery') target.ctes = ctes;
}
