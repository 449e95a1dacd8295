import type { AnySelect, Expr } from './ast.js';

/** The most rows any top-level SELECT returns (and each member of a set operation). */
export const MAX_SELECT_RETURNED_ROWS = 50_000;
/** Rows a query without its own LIMIT returns through the API. */
export const DEFAULT_RETURNED_ROWS = 100;

/**
 * Caps the top-level LIMIT(s) and, where none was given, applies `defaultLimit`. Returns whether
 * the query had a LIMIT of its own (the query runner paginates only when it had not).
 */
export function applyLimits(
  q: AnySelect,
  defaultLimit: number | null,
  max = MAX_SELECT_RETURNED_ROWS,
): boolean {
  if (q.node === 'SelectSetQuery') {
    let had = applyLimits(q.initial_select_query, defaultLimit, max);
    for (const s of q.subsequent_select_queries) had = applyLimits(s.select_query, defaultLimit, max) && had;
    return had;
  }
  const had = !!q.limit;
  if (!q.limit) {
    q.limit = { node: 'Constant', value: Math.min(defaultLimit ?? max, max) };
    return false;
  }
  q.limit = cap(q.limit, max);
  return had;
}

function cap(limit: Expr, max: number): Expr {
  if (limit.node === 'Constant' && typeof limit.value === 'number') {
    return limit.value > max ? { node: 'Constant', value: max } : limit;
  }
  return { node: 'Call', name: 'least', args: [{ node: 'Constant', value: max }, limit] };
}
