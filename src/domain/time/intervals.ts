import { DateTime } from 'luxon';
import { DateRangeError } from './errors.js';
import { zoneOf } from './relative-date.js';

/** Intervals trends bucket by. */
export type TrendInterval = 'minute' | 'hour' | 'day' | 'week' | 'month';

/** The project's first day of the week: 0 Sunday (PostHog's default), 1 Monday. */
export type WeekStartDay = 0 | 1;

/** The mode argument of ClickHouse's toStartOfWeek for a week start day (0 Sunday, 3 Monday/ISO). */
export const clickhouseWeekMode = (weekStartDay: WeekStartDay): 0 | 3 => (weekStartDay === 1 ? 3 : 0);

function startOf(at: DateTime, interval: TrendInterval, weekStartDay: WeekStartDay): DateTime {
  switch (interval) {
    case 'minute':
    case 'hour':
    case 'day':
    case 'month':
      return at.startOf(interval);
    case 'week': {
      const day = at.startOf('day');
      // Luxon weekdays run Monday 1 … Sunday 7.
      const back = weekStartDay === 1 ? day.weekday - 1 : day.weekday % 7;
      return day.minus({ days: back });
    }
  }
}

/** The start of the interval containing `instant`, in the project timezone (DST-aware). */
export function startOfInterval(
  instant: Date,
  interval: TrendInterval,
  timezone: string,
  weekStartDay: WeekStartDay = 0,
): Date {
  return startOf(DateTime.fromJSDate(instant, { zone: zoneOf(timezone) }), interval, weekStartDay).toJSDate();
}

/** `count` intervals later: calendar arithmetic for days and longer, elapsed time below. */
export function addIntervals(instant: Date, interval: TrendInterval, count: number, timezone: string): Date {
  return DateTime.fromJSDate(instant, { zone: zoneOf(timezone) })
    .plus({ [`${interval}s`]: count })
    .toJSDate();
}

const APPROX_MS: Record<TrendInterval, number> = {
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 28 * 86_400_000,
};

/**
 * Every interval start from the one containing `from` up to `to` inclusive (PostHog's
 * QueryDateRange.all_values): the buckets a trend shows, zeros included. Minutes and hours step by
 * elapsed time (the repeated hour when clocks go back is two buckets); days and longer by the
 * calendar. Zones whose DST shift is not a whole hour get hour buckets aligned to the first one.
 */
export function intervalStarts(
  from: Date,
  to: Date,
  interval: TrendInterval,
  timezone: string,
  options: { weekStartDay?: WeekStartDay; count?: number; max?: number } = {},
): Date[] {
  const zone = zoneOf(timezone);
  const count = options.count ?? 1;
  const max = options.max ?? 50_000;
  const end = to.getTime();
  if ((end - from.getTime()) / (APPROX_MS[interval] * count) > max) {
    throw new DateRangeError(
      `The date range has more than ${max} ${interval} intervals; use a longer interval.`,
    );
  }
  const first = startOf(DateTime.fromJSDate(from, { zone }), interval, options.weekStartDay ?? 0);
  const starts: Date[] = [];
  if (interval === 'minute' || interval === 'hour') {
    const stepMs = APPROX_MS[interval] * count;
    for (let at = first.toMillis(); at <= end; at += stepMs) starts.push(new Date(at));
    return starts;
  }
  const step = { [`${interval}s`]: count };
  for (let at = first; at.toMillis() <= end; at = at.plus(step)) starts.push(at.toJSDate());
  return starts;
}

/** Wall-clock `YYYY-MM-DD HH:MM:SS` in the project timezone, as HogQL's toDateTime() takes it. */
export function formatInZone(instant: Date, timezone: string): string {
  return DateTime.fromJSDate(instant, { zone: zoneOf(timezone) }).toFormat('yyyy-MM-dd HH:mm:ss');
}

/** `YYYY-MM-DD` of the instant in the project timezone (trend `days` labels). */
export function dayInZone(instant: Date, timezone: string): string {
  return DateTime.fromJSDate(instant, { zone: zoneOf(timezone) }).toFormat('yyyy-MM-dd');
}
