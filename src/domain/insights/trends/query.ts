import {
  call,
  compare,
  constant,
  type Expr,
  field,
  type OrderExpr,
  type SelectQuery,
} from '../../../hogql/ast.js';
import { ACTIVE_WINDOW_DAYS, type MathType, mathAggregate } from './math.js';
import type { EventsSeries } from './node.js';
import { bucketOf, bucketText, type Period, timeRange } from './scope.js';

/** What one series query reads: its filters (no time), math and optional breakdown value. */
export interface SeriesSpec {
  series: EventsSeries;
  math: MathType;
  filters: Expr[];
  /** The breakdown value expression (already bucketed into "other" when limited). */
  breakdown: Expr | null;
}

const events = { node: 'JoinExpr' as const, table: field('events') };
const alias = (name: string, expr: Expr): Expr => ({ node: 'Alias', alias: name, expr });
const where = (parts: Expr[]): Expr =>
  parts.length === 1 ? (parts[0] as Expr) : { node: 'And', exprs: parts };

/** Active-user maths with day or hour buckets count persons over a sliding window. */
export function hasWindow(spec: SeriesSpec, period: Period): boolean {
  return (
    ACTIVE_WINDOW_DAYS[spec.math] !== undefined && (period.interval === 'day' || period.interval === 'hour')
  );
}

/**
 * Rows `[bucket text, breakdown value?, value]` per bucket (or `[breakdown value?, value]` with
 * `total`: one aggregate over the whole period).
 */
export function seriesSelect(spec: SeriesSpec, period: Period, total = false): SelectQuery {
  if (!total && hasWindow(spec, period)) return activeSelect(spec, period);
  const window = ACTIVE_WINDOW_DAYS[spec.math];
  // A single weekly/monthly active number counts the window that ends with the range.
  if (total && window !== undefined) {
    const from = new Date(Math.max(period.from.getTime(), period.to.getTime() - window * 86_400_000));
    period = { ...period, from };
  }
  const select: Expr[] = [];
  const group: Expr[] = [];
  if (!total) {
    select.push(alias('day_start', bucketOf(period.interval)));
    group.push(field('day_start'));
  }
  if (spec.breakdown) {
    select.push(alias('breakdown_value', spec.breakdown));
    group.push(field('breakdown_value'));
  }
  select.push(alias('total', mathAggregate(spec.series, spec.math)));
  const grouped: SelectQuery = {
    node: 'SelectQuery',
    select,
    select_from: events,
    where: where([...spec.filters, ...timeRange(period)]),
    group_by: group.length ? group : null,
  };
  return total ? grouped : formatted(grouped, spec);
}

/** Buckets are grouped as DateTime and only the grouped rows formatted as text. */
function formatted(grouped: SelectQuery, spec: SeriesSpec): SelectQuery {
  return {
    node: 'SelectQuery',
    select: [
      alias('bucket', bucketText(field('day_start'))),
      ...(spec.breakdown ? [field('breakdown_value')] : []),
      field('total'),
    ],
    select_from: { node: 'JoinExpr', table: grouped },
  };
}

/**
 * Weekly/monthly active users: each person's active buckets are spread over the buckets whose
 * window (the bucket and the 6 or 29 days before it) contains them, then counted per bucket.
 */
function activeSelect(spec: SeriesSpec, period: Period): SelectQuery {
  const days = ACTIVE_WINDOW_DAYS[spec.math] as number;
  const hourly = period.interval === 'hour';
  const lookback = new Date(period.from.getTime() - days * 86_400_000);
  const inner: SelectQuery = {
    node: 'SelectQuery',
    select: [
      alias('actor', field('person_id')),
      alias('start', bucketOf(period.interval)),
      ...(spec.breakdown ? [alias('breakdown_value', spec.breakdown)] : []),
    ],
    select_from: events,
    where: where([...spec.filters, ...timeRange({ from: lookback, to: period.to })]),
    group_by: [field('actor'), field('start'), ...(spec.breakdown ? [field('breakdown_value')] : [])],
  };
  const offsets = call('arrayJoin', [call('range', [constant(0), constant(hourly ? days * 24 : days)])]);
  const shifted = call(hourly ? 'addHours' : 'addDays', [field('start'), offsets]);
  const grouped: SelectQuery = {
    node: 'SelectQuery',
    select: [
      alias('day_start', shifted),
      ...(spec.breakdown ? [field('breakdown_value')] : []),
      alias('total', call('count', [field('actor')], { distinct: true })),
    ],
    select_from: { node: 'JoinExpr', table: inner },
    group_by: [field('day_start'), ...(spec.breakdown ? [field('breakdown_value')] : [])],
  };
  return formatted(grouped, spec);
}

/** The breakdown values with the largest aggregate over the period, one more than `limit`. */
export function topValuesSelect(spec: SeriesSpec, period: Period, value: Expr, limit: number): SelectQuery {
  const math: MathType = ACTIVE_WINDOW_DAYS[spec.math] !== undefined ? 'dau' : spec.math;
  const order: OrderExpr[] = [
    { node: 'OrderExpr', expr: field('total'), order: 'DESC' },
    { node: 'OrderExpr', expr: field('value'), order: 'ASC' },
  ];
  return {
    node: 'SelectQuery',
    select: [alias('value', value), alias('total', mathAggregate(spec.series, math))],
    select_from: events,
    where: where([...spec.filters, ...timeRange(period)]),
    group_by: [field('value')],
    order_by: order,
    limit: constant(limit + 1),
  };
}

/** `value` when it is one of `kept`, else the "other" sentinel. */
export const limitedTo = (value: Expr, kept: string[], other: string): Expr =>
  call('if', [compare('in', value, { node: 'Array', exprs: kept.map(constant) }), value, constant(other)]);
