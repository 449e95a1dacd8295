/**
 * When a cached result is too old to serve without recalculating (PostHog's staleness rules).
 */
export type Interval = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year';

/** `default` decides "very fresh"; `lazy` ("somewhat fresh") is used by lazy_async. */
export type ThresholdMode = 'default' | 'lazy';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Milliseconds a result stays fresh, per interval; null means never stale. */
const THRESHOLDS: Record<Interval | 'none', Record<ThresholdMode, number | null>> = {
  none: { default: 6 * HOUR, lazy: 12 * HOUR },
  second: { default: null, lazy: null },
  minute: { default: 5 * MINUTE, lazy: 15 * MINUTE },
  hour: { default: HOUR, lazy: 2 * HOUR },
  day: { default: 6 * HOUR, lazy: 12 * HOUR },
  week: { default: DAY, lazy: DAY },
  month: { default: DAY, lazy: DAY },
  quarter: { default: DAY, lazy: DAY },
  year: { default: DAY, lazy: DAY },
};

/** Results of queries without a date range (HogQL, events) are judged with the minute interval. */
export const NO_DATE_RANGE_INTERVAL: Interval = 'minute';

/** A result whose `date_to` is older than its refresh minus this cannot change any more. */
const SETTLED_MARGIN_MS = 10_000;

/** How soon a client may ask for a recalculation (PostHog's default refresh frequency). */
export const DEFAULT_REFRESH_FREQUENCY_MS = MINUTE;

export function stalenessThreshold(
  interval: Interval | null,
  mode: ThresholdMode = 'default',
): number | null {
  return THRESHOLDS[interval ?? 'none'][mode];
}

export interface StalenessInput {
  now: Date;
  lastRefresh: Date;
  /** The query's interval; null for "none" (6 h / 12 h). */
  interval: Interval | null;
  /** The end of the query's date range, when it has one. */
  dateTo?: Date | null;
  /** An explicit deadline; when given it alone decides. */
  targetAge?: Date | null;
  mode?: ThresholdMode;
}

/** Whether the query's range ended well before its calculation: no new event can change it. */
export const isSettled = (dateTo: Date | null | undefined, lastRefresh: Date): boolean =>
  !!dateTo && dateTo.getTime() < lastRefresh.getTime() - SETTLED_MARGIN_MS;

export function isStale(input: StalenessInput): boolean {
  const { now, lastRefresh } = input;
  if (input.targetAge) return now.getTime() > input.targetAge.getTime();
  if (isSettled(input.dateTo, lastRefresh)) return false;
  const threshold = stalenessThreshold(input.interval, input.mode ?? 'default');
  if (threshold === null) return false;
  return now.getTime() > lastRefresh.getTime() + threshold;
}

/** Until when the result is meant to be served from cache; null when it never goes stale. */
export function cacheTargetAge(
  lastRefresh: Date,
  interval: Interval | null,
  mode: ThresholdMode = 'default',
): Date | null {
  const threshold = stalenessThreshold(interval, mode);
  return threshold === null ? null : new Date(lastRefresh.getTime() + threshold);
}

/**
 * When newer events made a cached result stale (Burrow's addition to PostHog's thresholds): the
 * project's event watermark, if it is later than the moment the calculation began reading and the
 * query's range reaches the present. Null when the result still holds every acknowledged event.
 */
export function outdatedByEvents(input: {
  startedAt: Date;
  lastRefresh: Date;
  watermark: Date | null;
  dateTo?: Date | null;
}): Date | null {
  const { startedAt, watermark } = input;
  if (!watermark || watermark.getTime() <= startedAt.getTime()) return null;
  return isSettled(input.dateTo, input.lastRefresh) ? null : watermark;
}

export function nextAllowedClientRefresh(
  lastRefresh: Date,
  frequencyMs = DEFAULT_REFRESH_FREQUENCY_MS,
): Date {
  return new Date(lastRefresh.getTime() + frequencyMs);
}
