import { DateTime } from 'luxon';
import { call, compare, constant, type Expr, field } from '../../../hogql/ast.js';
import { at, propertiesToExpr } from '../../../hogql/property-filters.js';
import { actionToExpr } from '../../actions/predicate.js';
import type { RunnerContext } from '../../query/context.js';
import { runSelect } from '../../query/run-select.js';
import { resolveDateRange, useStartOfInterval } from '../../time/date-range.js';
import { intervalStarts, type TrendInterval } from '../../time/intervals.js';
import { parseDate, zoneOf } from '../../time/relative-date.js';
import { type EventsSeries, type InsightNode, seriesAction } from './node.js';

export type InsightContext = RunnerContext;

/** One period of an insight: the buckets shown and the instants the events are read between. */
export interface Period {
  interval: TrendInterval;
  buckets: Date[];
  /** Inclusive lower bound of the events read. */
  from: Date;
  /** Exclusive upper bound. */
  to: Date;
  /** The resolved date_to (for staleness hints). */
  dateTo: Date;
}

const utc = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');
/** An instant as HogQL; whole seconds (callers round outward). */
export const instant = (d: Date): Expr => call('toDateTime', [constant(utc(d)), constant('UTC')]);

/** The earliest event of the project (what `date_from: "all"` starts at). */
async function earliestEvent(ctx: RunnerContext): Promise<Date | null> {
  const out = await runSelect(
    {
      node: 'SelectQuery',
      select: [call('min', [field('timestamp')])],
      select_from: { node: 'JoinExpr', table: field('events') },
    },
    ctx,
  );
  const v = out.rows[0]?.[0];
  if (typeof v !== 'string' || v.startsWith('1970-01-01')) return null;
  return new Date(`${v.replace(' ', 'T').slice(0, 19)}Z`);
}

export async function currentPeriod(node: InsightNode, ctx: RunnerContext): Promise<Period> {
  return periodOf(node, ctx, node.dateRange?.date_from === 'all' ? await earliestEvent(ctx) : null);
}

/** The period of a range; `all` starts at `earliest` (or, without it, at date_to). */
export function periodOf(node: InsightNode, ctx: RunnerContext, earliest: Date | null): Period {
  const interval = node.interval ?? 'day';
  const range = node.dateRange ?? null;
  const resolved = resolveDateRange(range, { timezone: ctx.timezone, now: ctx.now, interval, earliest });
  const start = resolved.dateFrom ?? resolved.dateTo;
  const buckets = intervalStarts(start, resolved.dateTo, interval, ctx.timezone, {
    weekStartDay: ctx.weekStartDay,
    max: 10_000,
  });
  const from = useStartOfInterval(range, resolved) ? (buckets[0] ?? start) : start;
  // date_to is the last instant included (e.g. 23:59:59.999); read up to the next whole second.
  const to = new Date(Math.floor(resolved.dateTo.getTime() / 1000) * 1000 + 1000);
  return { interval, buckets, from, to, dateTo: resolved.dateTo };
}

/**
 * The period compared against: shifted back by `compare_to` (e.g. `-1w`), or by the length of
 * the current period in intervals (PostHog's "previous period").
 */
export function previousPeriod(
  current: Period,
  compareTo: string | null | undefined,
  ctx: RunnerContext,
): Period {
  const zone = zoneOf(ctx.timezone);
  const shift = (d: Date): Date => {
    const at = DateTime.fromJSDate(d, { zone });
    if (compareTo) {
      const moved = parseDate(compareTo, {
        timezone: ctx.timezone,
        now: d,
        attr: 'compareFilter.compare_to',
      });
      return moved.at.toJSDate();
    }
    return at.minus({ [`${current.interval}s`]: current.buckets.length }).toJSDate();
  };
  const from = shift(current.from);
  const dateTo = shift(current.dateTo);
  const first = shift(current.buckets[0] ?? current.from);
  const buckets = intervalStarts(first, dateTo, current.interval, ctx.timezone, {
    weekStartDay: ctx.weekStartDay,
    max: 10_000,
  }).slice(0, current.buckets.length);
  return { interval: current.interval, buckets, from, to: shift(current.to), dateTo };
}

export const timeRange = (p: { from: Date; to: Date }): Expr[] => [
  compare('>=', field('timestamp'), instant(p.from)),
  compare('<', field('timestamp'), instant(p.to)),
];

const isTrue = (e: Expr) => e.node === 'Constant' && e.value === true;

/** Event name, series and insight property filters, test accounts: the series' WHERE (no time). */
export function seriesFilters(series: EventsSeries, node: InsightNode, ctx: InsightContext): Expr[] {
  const parts: Expr[] = [];
  const action = seriesAction(series);
  if (action) parts.push(actionToExpr(action.steps));
  else if (typeof series.event === 'string')
    parts.push(compare('==', field('event'), constant(series.event)));
  const i = Math.max(0, (node.series as unknown[] | undefined)?.indexOf(series) ?? 0);
  for (const [name, props] of [
    [`series__${i}__properties`, series.properties],
    [`series__${i}__fixedProperties`, series.fixedProperties],
    ['properties', node.properties],
  ] as const) {
    const e = at(name, () => propertiesToExpr(props ?? null));
    if (!isTrue(e)) parts.push(e);
  }
  if (node.filterTestAccounts && ctx.testAccountFilters) {
    const e = propertiesToExpr(ctx.testAccountFilters);
    if (!isTrue(e)) parts.push(e);
  }
  return parts;
}

const BUCKET_FN: Record<TrendInterval, string> = {
  minute: 'toStartOfMinute',
  hour: 'toStartOfHour',
  day: 'toStartOfDay',
  week: 'toStartOfWeek',
  month: 'toStartOfMonth',
};

/** The interval start of an expression (in the project timezone), e.g. `toStartOfDay(timestamp)`. */
export const bucketOf = (interval: TrendInterval, e: Expr = field('timestamp')): Expr =>
  call(BUCKET_FN[interval], [e]);

/** A bucket as the text rows carry it, so they match `formatInZone` of the JS bucket starts. */
export const bucketText = (e: Expr): Expr => call('formatDateTime', [e, constant('%Y-%m-%d %H:%i:%S')]);

export const num = (v: unknown): number => {
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : 0;
};
