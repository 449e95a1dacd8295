import { DateTime } from 'luxon';
import { formatInZone, type TrendInterval } from './intervals.js';
import { parseDate, type RelativeDate, zoneOf } from './relative-date.js';

/** PostHog's DateRange. */
export interface DateRangeInput {
  date_from?: string | null;
  date_to?: string | null;
  /** Use the given bounds exactly, without rounding date_to to the end of its day/hour. */
  explicitDate?: boolean | null;
}

export interface ResolveOptions {
  timezone: string;
  now: Date;
  /** Default `day`. */
  interval?: TrendInterval;
  /** What `all` starts at (the team's earliest event); without it `dateFrom` is null. */
  earliest?: Date | null;
}

export interface ResolvedDateRange {
  /** Null only for `all` without `earliest`: no lower bound. */
  dateFrom: Date | null;
  dateTo: Date;
  /** The bounds as wall-clock `YYYY-MM-DD HH:MM:SS` in the project timezone. */
  dateFromText: string | null;
  dateToText: string;
  isAll: boolean;
  /** How date_from was written when it was relative (null for ISO, `all` or the default). */
  fromRelative: RelativeDate | null;
  interval: TrendInterval;
  timezone: string;
  explicit: boolean;
}

/** Days before today that a range without date_from starts (PostHog's DEFAULT_DATE_FROM_DAYS). */
const DEFAULT_DAYS = 7;

/**
 * PostHog's QueryDateRange: date_from/date_to strings to instants in the project timezone. date_to
 * (default now) is rounded up to the end of its day, or for hour/minute intervals of its hour/minute
 * when relative, unless `explicitDate`; date_from (default 7 days before today's start) is
 * truncated to its day, or hour for `-Nh`, except with minute intervals.
 */
export function resolveDateRange(
  range: DateRangeInput | null | undefined,
  options: ResolveOptions,
): ResolvedDateRange {
  const zone = zoneOf(options.timezone);
  const interval = options.interval ?? 'day';
  const now = DateTime.fromJSDate(options.now, { zone });
  const explicit = range?.explicitDate === true;

  let to: DateTime = now;
  let toRelative = true;
  if (range?.date_to) {
    const parsed = parseDate(range.date_to, {
      timezone: options.timezone,
      now: options.now,
      attr: 'date_to',
    });
    to = parsed.at;
    toRelative = parsed.relative !== null;
  }
  if (!explicit) {
    if (interval !== 'hour' && interval !== 'minute') to = to.endOf('day');
    else if (toRelative) to = to.endOf(interval);
  }

  let from: DateTime | null;
  let fromRelative: RelativeDate | null = null;
  const isAll = range?.date_from === 'all';
  if (isAll) {
    from = options.earliest ? DateTime.fromJSDate(options.earliest, { zone }) : null;
  } else if (range?.date_from) {
    const parsed = parseDate(range.date_from, {
      timezone: options.timezone,
      now: options.now,
      alwaysTruncate: interval !== 'minute',
      attr: 'date_from',
    });
    from = parsed.at;
    fromRelative = parsed.relative;
  } else {
    from = now.startOf('day').minus({ days: DEFAULT_DAYS });
  }

  const dateFrom = from ? from.toJSDate() : null;
  const dateTo = to.toJSDate();
  return {
    dateFrom,
    dateTo,
    dateFromText: dateFrom ? formatInZone(dateFrom, options.timezone) : null,
    dateToText: formatInZone(dateTo, options.timezone),
    isAll,
    fromRelative,
    interval,
    timezone: options.timezone,
    explicit,
  };
}

/**
 * Whether trends round date_from down to the start of its interval (PostHog's
 * use_start_of_interval): not for explicit dates, hour/minute intervals, or `-Nh` with days.
 */
export function useStartOfInterval(
  range: DateRangeInput | null | undefined,
  resolved: ResolvedDateRange,
): boolean {
  if (!range?.date_from) return true;
  if (resolved.explicit) return false;
  const relative = resolved.fromRelative !== null || resolved.isAll;
  if (!relative) return true;
  if (resolved.interval === 'hour' || resolved.interval === 'minute') return false;
  if (resolved.interval === 'day' && resolved.fromRelative?.unit === 'h') return false;
  return true;
}
