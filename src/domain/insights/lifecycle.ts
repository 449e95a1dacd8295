import { DateTime } from 'luxon';
import { ApiError } from '../../errors.js';
import { call, compare, constant, type Expr, field, type SelectQuery } from '../../hogql/ast.js';
import type { QueryResult } from '../query/context.js';
import type { QueryNode } from '../query/kinds.js';
import { queryResponse } from '../query/response.js';
import type { QueryRunner } from '../query/run.js';
import { runSelect } from '../query/run-select.js';
import type { TrendInterval } from '../time/intervals.js';
import { zoneOf } from '../time/relative-date.js';
import { checkInsightNode, type EventsSeries, type InsightNode, optionalObjectField } from './trends/node.js';
import {
  bucketOf,
  bucketText,
  currentPeriod,
  type InsightContext,
  num,
  seriesFilters,
  timeRange,
} from './trends/scope.js';
import { actionOf, axis, seriesName } from './trends/series.js';

/**
 * LifecycleQuery: per interval, the persons who were new (created in it), returning (active in the
 * interval before too), resurrecting (active again after a gap) or dormant (active the interval
 * before, not in this one; counted negatively).
 */
const STATUSES = ['new', 'returning', 'resurrecting', 'dormant'] as const;
type Status = (typeof STATUSES)[number];

function check(node: QueryNode): QueryNode {
  const n = checkInsightNode(node, { minSeries: 1 }) as InsightNode;
  if (n.series.length !== 1)
    throw new ApiError(
      400,
      'validation_error',
      'invalid_input',
      'Lifecycle needs exactly one series.',
      'series',
    );
  optionalObjectField(n, 'lifecycleFilter');
  return n;
}

const alias = (name: string, expr: Expr): Expr => ({ node: 'Alias', alias: name, expr });
const lambda = (expr: Expr): Expr => ({ node: 'Lambda', args: ['b'], expr });
const ADD: Record<TrendInterval, string> = {
  minute: 'addMinutes',
  hour: 'addHours',
  day: 'addDays',
  week: 'addWeeks',
  month: 'addMonths',
};

/**
 * Rows `[bucket, status, persons]`, classified in the engine so only counts come back: each
 * person's active buckets become (bucket, new/returning/resurrecting) pairs, and each active
 * bucket not followed by another becomes (next bucket, dormant).
 */
function lifecycleSelect(filters: Expr[], from: Date, to: Date, interval: TrendInterval): SelectQuery {
  const perActor: SelectQuery = {
    node: 'SelectQuery',
    select: [
      alias('actor', field('person_id')),
      alias('created', bucketOf(interval, call('min', [field('person', 'created_at')]))),
      alias('active', call('groupUniqArray', [bucketOf(interval)])),
    ],
    select_from: { node: 'JoinExpr', table: field('events') },
    where: { node: 'And', exprs: [...filters, ...timeRange({ from, to })] },
    group_by: [field('actor')],
  };
  const b = field('b');
  const shift = (n: number) => call(ADD[interval], [b, constant(n)]);
  const statuses = call('arrayMap', [
    lambda(
      call('tuple', [
        b,
        call('multiIf', [
          compare('==', b, field('created')),
          constant('new'),
          call('has', [field('active'), shift(-1)]),
          constant('returning'),
          constant('resurrecting'),
        ]),
      ]),
    ),
    field('active'),
  ]);
  const dormant = call('arrayMap', [
    lambda(call('tuple', [shift(1), constant('dormant')])),
    call('arrayFilter', [lambda(call('not', [call('has', [field('active'), shift(1)])])), field('active')]),
  ]);
  const pairs: SelectQuery = {
    node: 'SelectQuery',
    select: [alias('pair', call('arrayJoin', [call('arrayConcat', [statuses, dormant])]))],
    select_from: { node: 'JoinExpr', table: perActor },
  };
  return {
    node: 'SelectQuery',
    select: [
      alias('bucket', bucketText(call('tupleElement', [field('pair'), constant(1)]))),
      alias('status', call('tupleElement', [field('pair'), constant(2)])),
      alias('persons', call('count', [])),
    ],
    select_from: { node: 'JoinExpr', table: pairs },
    group_by: [field('bucket'), field('status')],
  };
}

async function run(node: InsightNode, ctx: InsightContext): Promise<QueryResult> {
  const started = performance.now();
  const period = await currentPeriod(node, ctx);
  const series = node.series[0] as EventsSeries;
  // One interval before the range decides returning vs resurrecting (and dormant) in the first.
  const before = DateTime.fromJSDate(period.buckets[0] ?? period.from, { zone: zoneOf(ctx.timezone) })
    .minus({ [`${period.interval}s`]: 1 })
    .toJSDate();
  const { days, labels, keys } = axis(period, ctx.timezone);
  const index = new Map(keys.map((k, i) => [k, i]));
  const out = await runSelect(
    lifecycleSelect(seriesFilters(series, node, ctx), before, period.to, period.interval),
    ctx,
    { modifiers: node.modifiers },
  );
  const data = Object.fromEntries(STATUSES.map((s) => [s, keys.map(() => 0)])) as Record<Status, number[]>;
  for (const [bucket, status, persons] of out.rows) {
    const i = index.get(String(bucket));
    const list = data[status as Status];
    if (i === undefined || !list) continue;
    list[i] = status === 'dormant' ? -num(persons) : num(persons);
  }
  const name = seriesName(series);
  const results = STATUSES.map((status) => ({
    data: data[status],
    count: data[status].reduce((a, b) => a + b, 0),
    days,
    labels,
    label: `${name} - ${status}`,
    status,
    action: actionOf(series, 0, days),
    filter: { insight: 'LIFECYCLE', interval: period.interval },
  }));
  return queryResponse(
    {
      results,
      hogql: out.hogql,
    },
    { seconds: (performance.now() - started) / 1000, modifiers: node.modifiers },
  );
}

export const lifecycleRunner: QueryRunner = {
  check,
  run: (node, ctx) => run(node as InsightNode, ctx),
  staleness: { interval: 'day' },
};
