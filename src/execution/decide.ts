import type { ExecutionMode } from './refresh.js';
import { type Interval, isStale } from './staleness.js';

/**
 * How old a cached result is: `fresh` is within the default threshold ("very fresh"),
 * `lazy_fresh` only within the lazy one ("somewhat fresh"), `stale` beyond both.
 */
export type Freshness = 'fresh' | 'lazy_fresh' | 'stale';

export interface FreshnessInput {
  now: Date;
  lastRefresh: Date;
  interval: Interval | null;
  dateTo?: Date | null;
  targetAge?: Date | null;
}

export function freshnessOf(input: FreshnessInput): Freshness {
  if (!isStale({ ...input, mode: 'default' })) return 'fresh';
  return isStale({ ...input, mode: 'lazy' }) ? 'stale' : 'lazy_fresh';
}

/**
 * What to do with a request:
 * - `serve_cached`: answer the cached result (with the status of a calculation still running for
 *   this id, if any);
 * - `serve_cached_and_refresh`: answer the cached result and start a background calculation whose
 *   status goes in the body;
 * - `calculate`: run now and answer the fresh result;
 * - `enqueue`: start a background calculation, answer `{cache_key, query_status}`;
 * - `enqueue_status_only`: start a background calculation, answer `{query_status}` only;
 * - `cache_miss`: answer `{cache_key, query_status}` where the status is that of a calculation
 *   already running, else null.
 */
export type Action =
  | 'serve_cached'
  | 'serve_cached_and_refresh'
  | 'calculate'
  | 'enqueue'
  | 'enqueue_status_only'
  | 'cache_miss';

/** `cached` is null on a miss. PostHog's query runner table, one row per mode. */
export function decide(mode: ExecutionMode, cached: Freshness | null): Action {
  switch (mode) {
    case 'force_blocking':
      return 'calculate';
    case 'force_async':
      return 'enqueue_status_only';
    case 'blocking':
      return cached === 'fresh' ? 'serve_cached' : 'calculate';
    case 'async':
      if (cached === null) return 'enqueue';
      return cached === 'fresh' ? 'serve_cached' : 'serve_cached_and_refresh';
    case 'async_except_on_cache_miss':
      if (cached === null) return 'calculate';
      return cached === 'fresh' ? 'serve_cached' : 'serve_cached_and_refresh';
    case 'lazy_async':
      if (cached === null) return 'enqueue';
      return cached === 'stale' ? 'serve_cached_and_refresh' : 'serve_cached';
    case 'force_cache':
      return cached === null ? 'cache_miss' : 'serve_cached';
  }
}

/** Whether the engine will run for this action (the cache is only looked up for the others). */
export const needsCacheLookup = (mode: ExecutionMode) => mode !== 'force_blocking' && mode !== 'force_async';
