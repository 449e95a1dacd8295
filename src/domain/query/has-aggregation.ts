import type { Expr } from '../../hogql/ast.js';
import { isAggregation } from '../../hogql/functions/index.js';

/**
 * Whether an expression aggregates at this query level: a call to an aggregate function anywhere
 * in it, not counting subqueries (they aggregate on their own) or window functions' own names.
 * This decides GROUP BY columns and which `where` strings move to HAVING.
 */
export function hasAggregation(expr: Expr): boolean {
  let found = false;
  const walk = (value: unknown): void => {
    if (found || typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      for (const v of value) walk(v);
      return;
    }
    const node = value as { node?: string; name?: string } & Record<string, unknown>;
    if (node.node === 'SelectQuery' || node.node === 'SelectSetQuery') return;
    if (node.node === 'Call' && typeof node.name === 'string' && isAggregation(node.name)) {
      found = true;
      return;
    }
    for (const key of Object.keys(node)) {
      if (key === 'type' || key === 'start' || key === 'end') continue;
      walk(node[key]);
    }
  };
  walk(expr);
  return found;
}

/** The expression under any aliases (ORDER BY must not redefine a column). */
export function withoutAlias(expr: Expr): Expr {
  let e = expr;
  while (e.node === 'Alias') e = e.expr;
  return e;
}
