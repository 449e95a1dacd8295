import { and, call, type Expr, field, type OrderExpr, type SelectQuery } from '../../hogql/ast.js';
import { HogQLSyntaxError } from '../../hogql/errors.js';
import { parseOrderExpr } from '../../hogql/parse.js';
import { hasAggregation, withoutAlias } from './has-aggregation.js';

export interface ListSpec {
  /** The table the list reads (`events`, `sessions`, `persons`) or a prepared FROM clause. */
  from: SelectQuery['select_from'];
  /** The select strings after special columns were substituted (the default order looks at them). */
  selectInput: string[];
  select: Expr[];
  /** Every condition; those with an aggregation go to HAVING. */
  filters: Expr[];
  orderBy?: string[] | undefined;
  /** An order decided by the runner, used instead of `orderBy`'s strings. */
  order?: OrderExpr[] | undefined;
  /** Ordered DESC by default when selected (`timestamp`, `$start_timestamp`, `created_at`). */
  timeColumn: string;
}

/**
 * An `orderBy` string. The parser stops after a complete order expression, so whatever follows it
 * (`timestamp DESC DESC`, `event =`) is refused here rather than silently dropped.
 */
export function parseOrder(text: string): OrderExpr {
  const parsed = parseOrderExpr(text) as OrderExpr;
  const end = parsed.end?.offset;
  if (end !== undefined && !/^\s*(--[^\n]*)?$/.test(text.slice(end))) {
    throw new HogQLSyntaxError(
      `Unexpected input after the order expression: ${text.slice(end).trim().slice(0, 100)}`,
      end,
    );
  }
  return parsed;
}

const order = (expr: Expr, dir: 'ASC' | 'DESC'): OrderExpr => ({ node: 'OrderExpr', expr, order: dir });

/** Numeric constants would read as column positions in GROUP BY, and never change a group anyway. */
const groupable = (e: Expr) => !(e.node === 'Constant');

/**
 * The SELECT behind EventsQuery, SessionsQuery and ActorsQuery: when any column aggregates, the
 * others become GROUP BY; filters that aggregate move to HAVING; without `orderBy` the order is
 * `count()` DESC if selected, else the first aggregate DESC, else the time column DESC if
 * selected, else the first column ASC.
 */
export function buildListQuery(spec: ListSpec): SelectQuery {
  const aggregations = spec.select.filter(hasAggregation);
  const where = spec.filters.filter((e) => !hasAggregation(e));
  const having = spec.filters.filter(hasAggregation);

  let orderBy: OrderExpr[] = [];
  if (spec.order) orderBy = spec.order;
  else if (spec.orderBy) orderBy = spec.orderBy.map(parseOrder);
  else if (spec.selectInput.includes('count()')) orderBy = [order(call('count', []), 'DESC')];
  else if (aggregations[0]) orderBy = [order(withoutAlias(aggregations[0]), 'DESC')];
  else if (spec.selectInput.includes(spec.timeColumn)) orderBy = [order(field(spec.timeColumn), 'DESC')];
  else if (spec.select[0]) orderBy = [order(withoutAlias(spec.select[0]), 'ASC')];

  const groupBy = aggregations.length
    ? spec.select
        .filter((e) => !hasAggregation(e))
        .map(withoutAlias)
        .filter(groupable)
    : [];
  return {
    node: 'SelectQuery',
    select: spec.select,
    select_from: spec.from,
    where: where.length ? and(...where) : null,
    having: having.length ? and(...having) : null,
    group_by: groupBy.length ? groupBy : null,
    order_by: orderBy,
  };
}

/** `FROM <table>`. */
export const fromTable = (name: string): SelectQuery['select_from'] => ({
  node: 'JoinExpr',
  table: field(name),
});

/** PostHog's column names: the select string as given, or the alias when the column has one. */
export function columnNames(input: string[], select: Expr[]): string[] {
  return input.map((text, i) => {
    const e = select[i];
    return e?.node === 'Alias' ? e.alias : text;
  });
}
