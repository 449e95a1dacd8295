import { call, cloneAst, constant, type Expr, field, type SelectQuery } from '../../../hogql/ast.js';
import { CURSOR_AT, CURSOR_UUID, rowPage } from './hogql-query.js';

/** The outer SELECTs that read a page of a query-based export (see hogql-query.ts). */
const AT_TEXT = '__burrow_at_text';
const UUID_TEXT = '__burrow_uuid_text';

export const from = (q: SelectQuery) => ({ node: 'JoinExpr' as const, table: q, alias: '__burrow_q' });

/**
 * A page of a row query: the formatted columns, then the cursor as text (the last two columns),
 * in the inner query's order.
 */
export function rowOuter(
  outer: Expr[],
  inner: SelectQuery,
  after: { at: string; uuid: string } | null,
  page: number,
): SelectQuery {
  return {
    node: 'SelectQuery',
    select: [
      ...outer,
      {
        node: 'Alias',
        alias: AT_TEXT,
        expr: call('formatDateTime', [field(CURSOR_AT), constant('%Y-%m-%d %H:%i:%S.%f'), constant('UTC')]),
      },
      { node: 'Alias', alias: UUID_TEXT, expr: call('toString', [field(CURSOR_UUID)]) },
    ],
    select_from: from(rowPage(inner, after, page)),
    order_by: [CURSOR_AT, CURSOR_UUID].map((c) => ({ node: 'OrderExpr', expr: field(c), order: 'ASC' })),
  };
}

/** A page of a grouped (or otherwise set-shaped) query: its result ordered by every column. */
export function setOuter(outer: Expr[], inner: SelectQuery, page: number, offset: number): SelectQuery {
  return {
    node: 'SelectQuery',
    select: outer,
    select_from: from(inner),
    order_by: outer.map((o) => ({
      node: 'OrderExpr',
      expr: cloneAst(o.node === 'Alias' ? o.expr : o),
      order: 'ASC',
    })),
    limit: constant(page),
    offset: constant(offset),
  };
}
