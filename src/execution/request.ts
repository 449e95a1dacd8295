import type { CacheKeyInput } from './cache-key.js';
import type { ExecutionMode } from './refresh.js';
import type { CachedResponse, CacheMissResponse, StalenessHints } from './response.js';
import type { QueryStatus } from './status.js';

export interface QueryTeam {
  id: number;
  timezone: string;
}

/** What the runner gets: pass `marker` and `signal` to `events.query` so a cancel stops the engine. */
export interface RunContext {
  signal: AbortSignal;
  /** `burrow_<team>_<query id>`; EventsStore.query's `marker` option. */
  marker: string;
  queryId: string;
  teamId: number;
  /** A background calculation: it gets the async engine time limit (600 s instead of 60 s). */
  async: boolean;
}

export interface ExecuteQueryRequest<R extends object> {
  team: QueryTeam;
  /** The query node after overrides and unwrapping: what the cache key is made of. */
  query: unknown;
  /** The body's `refresh` and deprecated `async`, mapped by `queryEndpointMode` unless `mode` is given. */
  refresh?: unknown;
  legacyAsync?: unknown;
  mode?: ExecutionMode;
  /** The body's `client_query_id`; a random id otherwise. Status and cancel use it. */
  clientQueryId?: string | null;
  modifiers?: unknown;
  /** More cache key material (runner name, limit context, week start day). */
  cacheKeyExtra?: CacheKeyInput['extra'];
  staleness?: StalenessHints;
  insightId?: number | null;
  dashboardId?: number | null;
  labels?: string[] | null;
  /** Aborts a blocking calculation (e.g. the HTTP client went away). */
  signal?: AbortSignal;
  /**
   * Calculates the result (results, columns, hogql, ...: whatever the response shows besides the
   * cache fields). Called at most once per cache key at a time (single flight). A result with a
   * truthy `error` is answered but not cached.
   */
  run: (context: RunContext) => Promise<R>;
}

/**
 * What to answer: `result` is a (cached or fresh) response, `cache_miss` PostHog's
 * CacheMissResponse, `status` a bare `{query_status}` (force_async). `httpStatus` is 202 whenever
 * the body carries a status that is not complete.
 */
export type ExecuteQueryOutcome<R> =
  | { kind: 'result'; httpStatus: 200 | 202; body: CachedResponse<R> }
  | { kind: 'cache_miss'; httpStatus: 200 | 202; body: CacheMissResponse }
  | { kind: 'status'; httpStatus: 200 | 202; body: { query_status: QueryStatus } };
