import { and, call, compare, constant, type Expr, field, type SelectQuery } from '../../../hogql/ast.js';
import { findAggregate } from '../../../hogql/functions/aggregate-lookup.js';
import { propertiesToExpr } from '../../../hogql/property-filters.js';
import { replaceNodes } from '../../../hogql/visit.js';
import type { PropertyFilter } from './filters.js';

/**
 * The AST pieces of a query-based export. The user's SELECT stays as written (so its WHERE may
 * use its own aliases) and becomes the inner query; Burrow adds the run's window on `inserted_at`,
 * the include/exclude lists and the filters to its WHERE, and reads it through an outer SELECT
 * that formats the columns for destinations.
 */
export interface QueryScope {
  filters: PropertyFilter[];
  includeEvents: string[];
  excludeEvents: string[];
  /** The project's retention cut (engine time): older events are not exported, even before the job deletes them. */
  eventsSince?: string | undefined;
}

/** Hidden columns of a row query: where the next page resumes. */
export const CURSOR_AT = '__burrow_cursor_at';
export const CURSOR_UUID = '__burrow_cursor_uuid';
export const innerName = (i: number) => `__burrow_c${i}`;

const at = (iso: string) => call('toDateTime64', [constant(iso), constant(6), constant('UTC')]);
const iso = (d: string) => d.replace('T', ' ').replace('Z', '');

/** `events`, or the alias the user gave it: fields are qualified so a SELECT alias cannot shadow them. */
function tableField(q: SelectQuery, name: string): Expr {
  return field(q.select_from?.alias ?? 'events', name);
}

/**
 * Whether rows are events one for one (paged on `(inserted_at, uuid)`), or the query groups,
 * deduplicates, limits or multiplies them (paged by OFFSET over the whole result, ordered).
 */
export function isRowQuery(q: SelectQuery): boolean {
  if (q.group_by?.length || q.distinct || q.having || q.limit || q.offset || q.limit_by) return false;
  if (q.array_join_op || q.window_exprs) return false;
  let rows = true;
  for (const item of q.select) {
    replaceNodes(item, (n) => {
      // arrayJoin() turns one event into several rows sharing its (inserted_at, uuid).
      if (n.node === 'WindowFunction') rows = false;
      if (n.node === 'Call' && (findAggregate(n.name) || n.name === 'arrayJoin')) rows = false;
      return undefined;
    });
  }
  return rows;
}

/** The user's query restricted to the window and the export's filters; unaliased items get names. */
export function innerQuery(
  q: SelectQuery,
  window: { start: string | null; end: string },
  scope: QueryScope,
): SelectQuery {
  const inserted = tableField(q, 'inserted_at');
  const event = tableField(q, 'event');
  const conditions: Expr[] = [
    ...(q.where ? [q.where] : []),
    ...(window.start ? [compare('>=', inserted, at(iso(window.start)))] : []),
    compare('<', inserted, at(iso(window.end))),
  ];
  if (scope.includeEvents.length > 0)
    conditions.push(compare('in', event, { node: 'Tuple', exprs: scope.includeEvents.map(constant) }));
  if (scope.excludeEvents.length > 0)
    conditions.push(compare('not in', event, { node: 'Tuple', exprs: scope.excludeEvents.map(constant) }));
  if (scope.filters.length > 0) conditions.push(propertiesToExpr(scope.filters as never));
  return {
    ...q,
    select: q.select.map((item, i) =>
      item.node === 'Alias' ? item : { node: 'Alias', alias: innerName(i), expr: item },
    ),
    where: and(...conditions),
    order_by: null,
  };
}

/** The name the outer query reads item `i` of the inner one by. */
export const innerColumn = (inner: SelectQuery, i: number): string => {
  const item = inner.select[i]!;
  return item.node === 'Alias' ? item.alias : innerName(i);
};

/** Adds the cursor columns, the resume condition, the order and the page size to a row query. */
export function rowPage(
  inner: SelectQuery,
  after: { at: string; uuid: string } | null,
  pageRows: number,
): SelectQuery {
  const inserted = tableField(inner, 'inserted_at');
  const uuid = tableField(inner, 'uuid');
  const resume = after
    ? [
        {
          node: 'Or',
          exprs: [
            compare('>', inserted, at(after.at)),
            and(
              compare('==', inserted, at(after.at)),
              compare('>', uuid, call('toUUID', [constant(after.uuid)])),
            ),
          ],
        } as Expr,
      ]
    : [];
  return {
    ...inner,
    select: [
      ...inner.select,
      { node: 'Alias', alias: CURSOR_AT, expr: inserted },
      { node: 'Alias', alias: CURSOR_UUID, expr: uuid },
    ],
    where: and(inner.where!, ...resume),
    order_by: [
      { node: 'OrderExpr', expr: inserted, order: 'ASC' },
      { node: 'OrderExpr', expr: uuid, order: 'ASC' },
    ],
    limit: constant(pageRows),
  };
}
