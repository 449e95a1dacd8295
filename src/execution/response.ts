import type { CacheEntry } from './cache.js';
import type { Interval } from './staleness.js';
import { cacheTargetAge, NO_DATE_RANGE_INTERVAL, nextAllowedClientRefresh } from './staleness.js';
import { isoSeconds, type QueryStatus } from './status.js';

/** The fields PostHog adds to every result that went through the cache (CachedQueryResponseMixin). */
export interface CacheFields {
  is_cached: boolean;
  last_refresh: string;
  next_allowed_client_refresh: string;
  cache_target_age: string | null;
  cache_key: string;
  timezone: string;
  query_status: QueryStatus | null;
}

export type CachedResponse<R> = R & CacheFields;

/** What a caller gets when there is no result yet (PostHog's CacheMissResponse). */
export interface CacheMissResponse {
  cache_key: string;
  query_status: QueryStatus | null;
}

/** How the runner's results age. */
export interface StalenessHints {
  /** The query's interval for staleness; queries without a date range use `minute` (5 minutes). */
  interval?: Interval | null;
  /** The end of the query's date range: results ending well before their refresh never go stale. */
  dateTo?: Date | null;
  /** The interval whose threshold gives `cache_target_age` (HogQLQuery: `day`); default `interval`. */
  targetAgeInterval?: Interval | null;
  /** An explicit deadline after which the result is stale, overriding the thresholds. */
  targetAge?: Date | null;
  /** How long after a calculation the client may ask again; default 1 minute. */
  refreshFrequencyMs?: number;
}

export const stalenessInterval = (hints: StalenessHints | undefined): Interval | null =>
  hints?.interval === undefined ? NO_DATE_RANGE_INTERVAL : hints.interval;

export function cachedResponse<R>(
  entry: CacheEntry<R>,
  context: {
    isCached: boolean;
    cacheKey: string;
    timezone: string;
    hints?: StalenessHints;
    /** Newer events made the result stale at this moment (staleness.ts `outdatedByEvents`). */
    outdatedAt?: Date | null;
  },
  status: QueryStatus | null,
): CachedResponse<R> {
  const last = new Date(entry.lastRefresh);
  const hints = context.hints;
  const targetInterval =
    hints?.targetAgeInterval === undefined ? stalenessInterval(hints) : hints.targetAgeInterval;
  let target = cacheTargetAge(last, targetInterval);
  // The threshold is an upper bound: newer events end the result's life sooner (never before it
  // was written, which events arriving during the calculation would otherwise suggest).
  if (context.outdatedAt) {
    const at = new Date(Math.max(context.outdatedAt.getTime(), last.getTime()));
    if (!target || at < target) target = at;
  }
  return {
    ...entry.result,
    is_cached: context.isCached,
    last_refresh: isoSeconds(last),
    next_allowed_client_refresh: isoSeconds(nextAllowedClientRefresh(last, hints?.refreshFrequencyMs)),
    cache_target_age: target ? isoSeconds(target) : null,
    cache_key: context.cacheKey,
    timezone: context.timezone,
    query_status: status,
  };
}

/** PostHog answers 202 whenever the body carries a status that is not complete. */
export const httpStatusFor = (status: QueryStatus | null | undefined): 200 | 202 =>
  status && !status.complete ? 202 : 200;
