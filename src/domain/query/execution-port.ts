import type { PreparedQuery } from './prepare.js';

/**
 * The query machinery (cache, refresh modes, background runs) as the domain calls it: a port that
 * execution/'s QueryService fills and the routes pass in. The domain names only what it hands over
 * and what it reads back, so it never imports execution/ (biome.json keeps it so); the compiler
 * checks that QueryService fits wherever a route passes it here.
 */

/** How a query may use the cache and where it runs (execution/refresh.ts lists the same seven). */
export type ExecutionMode =
  | 'force_blocking'
  | 'force_async'
  | 'blocking'
  | 'async'
  | 'async_except_on_cache_miss'
  | 'lazy_async'
  | 'force_cache';

/** A prepared query with what the cache and the status of a run are keyed and labelled by. */
export interface ExecutionRequest<R extends object = object> {
  team: { id: number; timezone: string };
  query: unknown;
  /** The `/query` body's `refresh` and deprecated `async`, mapped by execution unless `mode` is given. */
  refresh?: unknown;
  legacyAsync?: unknown;
  mode?: ExecutionMode;
  clientQueryId?: string | null;
  modifiers?: unknown;
  cacheKeyExtra?: Record<string, unknown>;
  staleness?: PreparedQuery['staleness'];
  insightId?: number | null;
  dashboardId?: number | null;
  signal?: AbortSignal;
  run(context: Parameters<PreparedQuery['run']>[0]): Promise<R>;
}

/**
 * What the domain reads of an answer: whether it carries a result, and the run's status `S` (passed
 * on unread). The full answer type is the service's own, so `/query` sends it as execution made it.
 */
export interface ExecutionAnswer<S = unknown> {
  kind: 'result' | 'cache_miss' | 'status';
  body: { query_status: S | null };
}

export interface QueryExecution<A extends ExecutionAnswer = ExecutionAnswer> {
  executeQuery<R extends object>(request: ExecutionRequest<R>): Promise<A>;
}
