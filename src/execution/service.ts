import { randomUUID } from 'node:crypto';
import type { BackgroundQueries } from './background.js';
import type { CacheEntry, QueryCache } from './cache.js';
import { queryCacheKey } from './cache-key.js';
import type { QueryControl, StatusAnswer } from './control.js';
import { decide, freshnessOf, needsCacheLookup } from './decide.js';
import { QueryThrottledError } from './errors.js';
import type { QueryExecutor } from './executor.js';
import { engineMarker } from './marker.js';
import { queryEndpointMode } from './refresh.js';
import type { RunRegistry } from './registry.js';
import type { ExecuteQueryOutcome, ExecuteQueryRequest } from './request.js';
import { cachedResponse, httpStatusFor, stalenessInterval } from './response.js';
import type { SingleFlight } from './single-flight.js';
import { outdatedByEvents } from './staleness.js';
import { type QueryStatus, STATUS_TTL_MS, type StatusStore } from './status.js';
import type { EventWatermarks } from './watermark.js';

export interface QueryServiceParts {
  cache: QueryCache;
  statuses: StatusStore;
  flight: SingleFlight;
  executor: QueryExecutor;
  registry: RunRegistry;
  background: BackgroundQueries;
  control: QueryControl;
  now: () => Date;
  /** When each project last got new events; without it only PostHog's age thresholds apply. */
  watermarks?: EventWatermarks;
}

/**
 * Runs queries through the cache according to the refresh mode: serves cached results, calculates
 * in the request, or starts background calculations whose status any node can read and cancel.
 */
export class QueryService {
  constructor(private readonly parts: QueryServiceParts) {}

  async executeQuery<R extends object>(request: ExecuteQueryRequest<R>): Promise<ExecuteQueryOutcome<R>> {
    const { cache, statuses, now } = this.parts;
    const { team } = request;
    const mode = request.mode ?? queryEndpointMode(request.refresh, request.legacyAsync);
    const cacheKey = queryCacheKey({
      teamId: team.id,
      timezone: team.timezone,
      query: request.query,
      modifiers: request.modifiers,
      extra: request.cacheKeyExtra,
    });
    const queryId = request.clientQueryId || randomUUID().replace(/-/g, '');
    const cached = needsCacheLookup(mode) ? await cache.get<R>(cacheKey) : null;
    const outdatedAt = cached ? await this.outdatedAt(team.id, cached, request) : null;
    const freshness = cached
      ? outdatedAt
        ? 'stale'
        : freshnessOf({
            now: now(),
            lastRefresh: new Date(cached.lastRefresh),
            interval: stalenessInterval(request.staleness),
            dateTo: request.staleness?.dateTo ?? null,
            targetAge: request.staleness?.targetAge ?? null,
          })
      : null;
    const context = { cacheKey, timezone: team.timezone, hints: request.staleness };
    const result = (entry: CacheEntry<R>, isCached: boolean, status: QueryStatus | null) => ({
      kind: 'result' as const,
      httpStatus: httpStatusFor(status),
      body: cachedResponse(entry, { ...context, isCached, outdatedAt: isCached ? outdatedAt : null }, status),
    });
    const miss = (status: QueryStatus | null) => ({
      kind: 'cache_miss' as const,
      httpStatus: httpStatusFor(status),
      body: { cache_key: cacheKey, query_status: status },
    });
    const runningStatus = async () => {
      const status = await statuses.get(team.id, queryId);
      return status && !status.complete ? status : null;
    };
    const enqueue = () =>
      this.parts.background.enqueue(request, cacheKey, queryId, async (signal, onStart) => {
        const entry = await this.calculate(request, cacheKey, queryId, signal, onStart, true);
        return cachedResponse(entry, { ...context, isCached: false }, null);
      });

    switch (decide(mode, freshness)) {
      case 'serve_cached':
        return result(cached!, true, await runningStatus());
      case 'cache_miss':
        // Never starts work: the status shown is that of a calculation of this query (by client
        // query id, or by cache key on this node) that is already running, else none.
        return miss((await runningStatus()) ?? (await this.parts.background.runningFor(team.id, cacheKey)));
      case 'calculate':
        return result(await this.calculateInRequest(request, cacheKey, queryId), false, null);
      case 'serve_cached_and_refresh': {
        // A team at its limit still gets the cached result, just without a refresh.
        const status = await enqueue().catch((error) => {
          if (error instanceof QueryThrottledError) return null;
          throw error;
        });
        return result(cached!, true, status);
      }
      case 'enqueue':
        return miss(await enqueue());
      case 'enqueue_status_only': {
        const status = await enqueue();
        return { kind: 'status', httpStatus: httpStatusFor(status), body: { query_status: status } };
      }
    }
  }

  /** GET /query/{id}/ (`show_progress` adds the engine progress while running). */
  getStatus(teamId: number, id: string, options: { showProgress?: boolean } = {}): Promise<StatusAnswer> {
    return this.parts.control.status(teamId, id, options.showProgress ?? false);
  }

  /** DELETE /query/{id}/: stops the query wherever it runs. */
  cancelQuery(
    teamId: number,
    id: string,
    options: { dequeueOnly?: boolean } = {},
  ): Promise<{ message: string }> {
    return this.parts.control.cancel(teamId, id, options.dequeueOnly ?? false);
  }

  /**
   * When events acknowledged after the cached result began reading made it stale, else null. A
   * watermark store that cannot answer leaves PostHog's thresholds alone in charge.
   */
  private async outdatedAt(
    teamId: number,
    entry: CacheEntry,
    request: ExecuteQueryRequest<object>,
  ): Promise<Date | null> {
    const { watermarks } = this.parts;
    if (!watermarks) return null;
    const lastRefresh = new Date(entry.lastRefresh);
    const watermark = await watermarks.latest(teamId).catch(() => null);
    return outdatedByEvents({
      startedAt: new Date(entry.startedAt ?? entry.lastRefresh),
      lastRefresh,
      watermark,
      dateTo: request.staleness?.dateTo ?? null,
    });
  }

  /** Aborts what still runs on this node (shutdown). */
  async close(): Promise<void> {
    this.parts.registry.abortAll();
  }

  /** One calculation for the key at a time (single flight), through the executor; writes the cache. */
  private calculate<R extends object>(
    request: ExecuteQueryRequest<R>,
    cacheKey: string,
    queryId: string,
    signal: AbortSignal,
    onStart?: () => void,
    background = false,
  ): Promise<CacheEntry<R>> {
    const { cache, flight, executor, now } = this.parts;
    const teamId = request.team.id;
    return flight.run(cacheKey, {
      signal,
      compute: async (runId, shared) => {
        const marker = engineMarker(teamId, queryId);
        // Taken when the engine is handed the query, after any wait for an executor slot: events
        // acknowledged before this moment are in the result (reads wait for this node's journal).
        let startedAt = now();
        const run = (s: AbortSignal) => {
          startedAt = now();
          return request.run({ signal: s, marker, queryId, teamId, async: background });
        };
        const result = await executor.submit(teamId, run, { signal: shared, onStart });
        const entry: CacheEntry<R> = {
          result,
          lastRefresh: now().toISOString(),
          runId,
          startedAt: startedAt.toISOString(),
        };
        // As in PostHog, a result carrying an error (debug mode) is answered but not cached.
        if (!(result as { error?: unknown }).error) await cache.set(cacheKey, entry);
        return entry;
      },
      fromOtherRun: async (runId) => {
        const entry = await cache.get<R>(cacheKey);
        return entry && entry.runId === runId ? entry : null;
      },
    });
  }

  /** A blocking calculation; with a client query id it can be cancelled from any node. */
  private async calculateInRequest<R extends object>(
    request: ExecuteQueryRequest<R>,
    cacheKey: string,
    queryId: string,
  ): Promise<CacheEntry<R>> {
    const { statuses, registry, now } = this.parts;
    const teamId = request.team.id;
    if (!request.clientQueryId) {
      return this.calculate(request, cacheKey, queryId, request.signal ?? new AbortController().signal);
    }
    const local = registry.register(teamId, queryId, request.signal);
    await statuses.markRunning(teamId, queryId, now().getTime() + STATUS_TTL_MS);
    try {
      return await this.calculate(request, cacheKey, queryId, local.controller.signal, () => {
        local.started = true;
      });
    } finally {
      registry.unregister(teamId, queryId, local);
      await statuses.clearRunning(teamId, queryId).catch(() => {});
    }
  }
}
