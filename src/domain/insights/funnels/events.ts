import { call, compare, constant, type Expr, field, type SelectQuery } from '../../../hogql/ast.js';
import { parseExpr } from '../../../hogql/parse.js';
import { type AnyProperties, propertiesToExpr } from '../../../hogql/property-filters.js';
import type { ResolvedDateRange } from '../../../query/date-range.js';
import {
  alias,
  all,
  fn,
  fromTable,
  ifElse,
  isTrue,
  lambda,
  nth,
  num,
  or,
  select,
  tuple,
  v,
} from '../ast-kit.js';
import { entityExpr } from '../entities.js';
import type { FunnelSpec, WindowUnit } from './spec.js';

/**
 * The innermost funnel query: one row per person (or `funnelAggregateByHogQL` value) with `evs`,
 * the person's relevant events sorted by time as tuples
 * (ms, steps matched as bits, exclusions matched as bits, breakdown value, window deadline ms,
 * interval start as text).
 * Everything later is array arithmetic over `evs`, so the events table is read exactly once.
 */
export const EV = { ms: 1, steps: 2, exclusions: 3, breakdown: 4, deadline: 5, period: 6 } as const;

const START_OF: Record<string, string> = {
  minute: 'toStartOfMinute',
  hour: 'toStartOfHour',
  day: 'toStartOfDay',
  week: 'toStartOfWeek',
  month: 'toStartOfMonth',
};

const INTERVAL_FN: Record<WindowUnit, string> = {
  second: 'toIntervalSecond',
  minute: 'toIntervalMinute',
  hour: 'toIntervalHour',
  day: 'toIntervalDay',
  week: 'toIntervalWeek',
  month: 'toIntervalMonth',
};

/** Which of the conditions an event meets, as bits (bit k: condition k), one integer per event. */
const bits = (conds: Expr[]): Expr =>
  conds.reduce<Expr>(
    (acc, cond, k) => fn('plus', acc, ifElse(cond, num(2 ** k), num(0))),
    fn('toInt', num(0)),
  );
const utc = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');
export const instant = (d: Date): Expr => call('toDateTime', [constant(utc(d)), constant('UTC')]);

/** The breakdown value of an event as funnels show it: a string, '' when absent. */
export function breakdownExpr(spec: FunnelSpec): Expr {
  const b = spec.breakdown;
  if (!b) return constant('');
  const prop =
    b.type === 'person' ? field('person', 'properties', b.property) : field('properties', b.property);
  return fn('ifNull', fn('toString', prop), constant(''));
}

export function timeRange(range: ResolvedDateRange, column = 'timestamp'): Expr[] {
  const out: Expr[] = [compare('<=', field(column), instant(range.dateTo))];
  if (range.dateFrom) out.unshift(compare('>=', field(column), instant(range.dateFrom)));
  return out;
}

/** The events query grouped per aggregation target. */
export function funnelEventsQuery(
  spec: FunnelSpec,
  range: ResolvedDateRange,
  properties: AnyProperties,
): SelectQuery {
  const stepConds = spec.steps.map(entityExpr);
  const exclusionConds = spec.exclusions.map((e) => entityExpr(e.entity));
  const deadline = fn(
    'toUnixTimestamp64Milli',
    fn('plus', field('timestamp'), fn(INTERVAL_FN[spec.window.unit], num(spec.window.interval))),
  );
  const event = tuple(
    fn('toUnixTimestamp64Milli', field('timestamp')),
    bits(stepConds),
    bits(exclusionConds),
    breakdownExpr(spec),
    deadline,
    // Only trends need the interval each event falls in; formatting it costs on every event.
    spec.viz === 'trends'
      ? fn(
          'formatDateTime',
          fn(START_OF[range.interval] ?? 'toStartOfDay', field('timestamp')),
          constant('%Y-%m-%d %H:%i:%S'),
        )
      : constant(''),
  );
  const where: Expr[] = timeRange(range);
  // Strict funnels need every event of the person: any other event in between breaks the chain.
  if (spec.order !== 'strict') where.push(or(...stepConds, ...exclusionConds));
  const props = propertiesToExpr(properties);
  if (!isTrue(props)) where.push(props);
  const target = spec.aggregateBy ? parseExpr(spec.aggregateBy) : field('person_id');
  return select({
    select: [
      alias('aggregation_target', target),
      alias('evs', fn('arraySort', lambda(['e'], nth(v('e'), EV.ms)), fn('groupArray', event))),
    ],
    select_from: fromTable('events'),
    where: all(where),
    group_by: [v('aggregation_target')],
  });
}
