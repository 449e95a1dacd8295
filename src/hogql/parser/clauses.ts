import { parseExpr } from './expressions.js';
import { parseClauseList, parseExprList } from './lists.js';
import { parseWindowExpr } from './order.js';
import type { Node, Parser } from './parser.js';
import { T } from './tokens.js';

/** [LEFT|INNER] ARRAY JOIN expr AS alias, …: every array needs an alias. */
export function parseArrayJoin(p: Parser, query: Node): void {
  let op = 'ARRAY JOIN';
  if (p.accept(T.LEFT)) op = 'LEFT ARRAY JOIN';
  else if (p.accept(T.INNER)) op = 'INNER ARRAY JOIN';
  const at = p.pos;
  p.pos += 2;
  const list = parseClauseList(p);
  for (const expr of list) {
    if (expr.node !== 'Alias') p.defer(p.error('ARRAY JOIN arrays must have an alias', at));
  }
  query.array_join_op = op;
  query.array_join_list = list;
}

/** GROUP BY ALL | CUBE(…) | ROLLUP(…) | GROUPING SETS ((…), …) | expr, … */
export function parseGroupBy(p: Parser, query: Node): void {
  p.pos += 2;
  const t = p.t;
  if (t === T.ALL && !continuesAsExpression(p.peek())) {
    p.pos++;
    query.group_by_mode = 'all';
    return;
  }
  if ((t === T.CUBE || t === T.ROLLUP) && p.peek() === T.LPAREN) {
    p.pos += 2;
    query.group_by = parseExprList(p);
    p.expect(T.RPAREN, "')'");
    query.group_by_mode = t === T.CUBE ? 'cube' : 'rollup';
    return;
  }
  if (t === T.GROUPING && p.peek() === T.SETS) {
    p.pos += 2;
    p.expect(T.LPAREN, "'('");
    const sets: Node[] = [];
    do {
      const first = p.expect(T.LPAREN, "'('");
      const exprs = p.at(T.RPAREN) ? [] : parseExprList(p);
      p.expect(T.RPAREN, "')'");
      sets.push(p.span({ node: 'GroupingSet', exprs }, first));
    } while (p.accept(T.COMMA));
    p.expect(T.RPAREN, "')'");
    query.group_by = sets;
    query.group_by_mode = 'grouping_sets';
    return;
  }
  query.group_by = parseClauseList(p);
}

function continuesAsExpression(t: number): boolean {
  return t === T.DOT || t === T.LPAREN || t === T.LBRACKET || t === T.COMMA;
}

/** WINDOW name AS (…), …: a map from name to WindowExpr. */
export function parseWindowClause(p: Parser): Record<string, Node> {
  p.pos++;
  const windows: Record<string, Node> = {};
  do {
    const name = p.identifier();
    p.expect(T.AS, 'AS');
    p.expect(T.LPAREN, "'('");
    windows[name] = parseWindowExpr(p);
    p.expect(T.RPAREN, "')'");
  } while (p.accept(T.COMMA));
  return windows;
}

/**
 * LIMIT n BY …, then LIMIT n [, m] [WITH TIES] | OFFSET m. `LIMIT a, b BY` means offset a, count b
 * (as in ClickHouse), while a plain `LIMIT a, b` keeps the reference AST's reading: limit a,
 * offset b. An OFFSET after `LIMIT n [WITH TIES]` is left to the enclosing set (see select-set.ts):
 * the reference parser reads it there, which only shows in the query's span.
 */
export function parseLimits(p: Parser, query: Node): void {
  if (p.at(T.OFFSET)) {
    p.pos++;
    query.offset = parseExpr(p);
    return;
  }
  if (!p.at(T.LIMIT)) return;
  const limitAt = p.pos++;
  const n = parseExpr(p);
  let second: Node | null = null;
  const viaComma = p.accept(T.COMMA);
  if (viaComma) {
    second = parseExpr(p);
  } else if (p.at(T.OFFSET)) {
    const saved = p.pos++;
    const value = parseExpr(p);
    if (p.at(T.BY) || atSetOperator(p)) second = value;
    else p.pos = saved;
  }
  if (p.accept(T.BY)) {
    const exprs = parseClauseList(p);
    const limitBy: Node =
      viaComma && second !== null
        ? { node: 'LimitByExpr', n: second, offset_value: n, exprs }
        : { node: 'LimitByExpr', n, offset_value: second, exprs };
    query.limit_by = p.span(limitBy, limitAt);
    parseLimits(p, query);
    return;
  }
  if (p.at(T.PERCENT)) throw p.unexpected();
  query.limit = n;
  if (second !== null) query.offset = second;
  if (p.at(T.WITH) && p.peek() === T.TIES) {
    p.pos += 2;
    query.limit_with_ties = true;
    if (second === null && !viaComma && p.at(T.OFFSET)) {
      const saved = p.pos++;
      const value = parseExpr(p);
      if (atSetOperator(p)) query.offset = value;
      else p.pos = saved;
    }
  }
}

const atSetOperator = (p: Parser) => p.at(T.UNION) || p.at(T.EXCEPT) || p.at(T.INTERSECT);
