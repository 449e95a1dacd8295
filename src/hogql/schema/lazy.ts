import { type Alias, type Expr, field, type SelectQuery } from '../ast.js';

/** An output field of a lazy table: how the generated SELECT computes it. */
export type LazyFieldExpr = () => Expr;

/**
 * The SELECT a lazy table turns into: only the requested fields (plus `always`, the keys joins
 * rely on), over one raw table, grouped so each key appears once.
 */
export function lazySelect(options: {
  from: string;
  exprs: Record<string, LazyFieldExpr>;
  requested: readonly string[];
  always: readonly string[];
  groupBy: string[];
  having?: () => Expr;
}): SelectQuery {
  const names = [...new Set([...options.always, ...options.requested])];
  const select: Alias[] = names.map((name) => {
    const make = options.exprs[name];
    if (!make) throw new Error(`lazy table ${options.from} has no field ${name}`);
    return { node: 'Alias', alias: name, expr: make() };
  });
  return {
    node: 'SelectQuery',
    select,
    select_from: { node: 'JoinExpr', table: field(options.from), alias: null },
    group_by: options.groupBy.map((f) => field(f)),
    having: options.having ? options.having() : null,
  };
}
