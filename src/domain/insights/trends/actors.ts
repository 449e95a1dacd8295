import { DateTime } from 'luxon';
import { ApiError } from '../../../errors.js';
import { call, type Expr, field, type SelectQuery } from '../../../hogql/ast.js';
import { registerActorsSource } from '../../query/actors-source.js';
import type { RunnerContext } from '../../query/context.js';
import type { QueryNode } from '../../query/kinds.js';
import { startOfInterval } from '../../time/intervals.js';
import { parseDate, zoneOf } from '../../time/relative-date.js';
import { BREAKDOWN_OTHER, checkBreakdown, valueConditions } from './breakdown.js';
import { ACTIVE_WINDOW_DAYS, checkMath } from './math.js';
import type { TrendsNode } from './node.js';
import { trendsRunner } from './runner.js';
import { type Period, periodOf, previousPeriod, seriesFilters, timeRange } from './scope.js';

/**
 * InsightActorsQuery over a TrendsQuery ("who is in this point"): the persons behind one bucket
 * (`day`), series, breakdown value and compare period, as an ActorsQuery source with
 * `actor_id` and their `event_count`.
 */
interface InsightActorsNode extends QueryNode {
  kind: 'InsightActorsQuery';
  source: TrendsNode;
  day?: string | number | null;
  series?: number | null;
  /** One value for a single breakdown, a list (one per breakdown) for `breakdowns`. */
  breakdown?: string | number | Array<string | number> | null;
  compare?: 'current' | 'previous' | null;
}

const bad = (detail: string, attr = 'source') =>
  new ApiError(400, 'validation_error', 'invalid_input', detail, attr);

function check(node: QueryNode): QueryNode {
  const n = node as InsightActorsNode;
  const source = n.source as QueryNode | undefined;
  if (typeof source !== 'object' || source === null || source.kind !== 'TrendsQuery')
    throw bad(
      `InsightActorsQuery over ${String(source?.kind ?? 'nothing').slice(0, 50)} is not supported yet: use a TrendsQuery source.`,
    );
  trendsRunner.check(source);
  const index = n.series ?? 0;
  if (!Number.isInteger(index) || index < 0 || index >= n.source.series.length)
    throw bad(`InsightActorsQuery.series ${String(index)} is not a series of the source query.`);
  if (n.day !== undefined && n.day !== null && typeof n.day !== 'string')
    throw bad('InsightActorsQuery.day must be a date string.', 'day');
  if (n.compare && n.compare !== 'current' && n.compare !== 'previous')
    throw bad('compare must be "current" or "previous".', 'compare');
  if (
    n.breakdown === BREAKDOWN_OTHER ||
    (Array.isArray(n.breakdown) && n.breakdown.includes(BREAKDOWN_OTHER))
  )
    throw bad('Actors of the "other" breakdown bucket are not supported yet.', 'breakdown');
  return n;
}

/** The instants of the chosen bucket (or the whole period without `day`). */
function window(n: InsightActorsNode, period: Period, ctx: RunnerContext): { from: Date; to: Date } {
  if (!n.day) return period;
  const at = parseDate(String(n.day), { timezone: ctx.timezone, now: ctx.now, attr: 'day' }).at.toJSDate();
  const start = startOfInterval(at, period.interval, ctx.timezone, ctx.weekStartDay);
  const end = DateTime.fromJSDate(start, { zone: zoneOf(ctx.timezone) })
    .plus({ [`${period.interval}s`]: 1 })
    .toJSDate();
  const days = ACTIVE_WINDOW_DAYS[checkMath(n.source.series[n.series ?? 0]!, n.series ?? 0)];
  if (days !== undefined && (period.interval === 'day' || period.interval === 'hour'))
    return { from: new Date(end.getTime() - days * 86_400_000), to: end };
  return {
    from: new Date(Math.max(start.getTime(), period.from.getTime())),
    to: new Date(Math.min(end.getTime(), period.to.getTime())),
  };
}

function build(node: QueryNode, ctx: RunnerContext) {
  const n = node as InsightActorsNode;
  const source = n.source;
  const index = n.series ?? 0;
  let period = periodOf(source, ctx, null);
  if (n.compare === 'previous') period = previousPeriod(period, source.compareFilter?.compare_to, ctx);
  const where: Expr[] = [
    ...seriesFilters(source.series[index]!, source, ctx),
    ...timeRange(window(n, period, ctx)),
  ];
  const bf = checkBreakdown(source.breakdownFilter);
  if (bf && n.breakdown !== undefined && n.breakdown !== null)
    where.push(
      ...valueConditions(bf, Array.isArray(n.breakdown) ? n.breakdown.map(String) : String(n.breakdown)),
    );
  const query: SelectQuery = {
    node: 'SelectQuery',
    select: [
      { node: 'Alias', alias: 'actor_id', expr: field('person_id') },
      { node: 'Alias', alias: 'event_count', expr: call('count', []) },
    ],
    select_from: { node: 'JoinExpr', table: field('events') },
    where: { node: 'And', exprs: where },
    group_by: [field('actor_id')],
  };
  return { query, options: { modifiers: source.modifiers } };
}

registerActorsSource('InsightActorsQuery', { check, build });
