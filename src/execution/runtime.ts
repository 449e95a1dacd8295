import { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { EventsStore } from '../store/events/store.js';
import type { Bus } from '../store/shared/bus.js';
import { BackgroundQueries } from './background.js';
import { memoryCache, type QueryCache } from './cache.js';
import { QueryControl } from './control.js';
import { QueryExecutor } from './executor.js';
import { redisCache } from './redis-cache.js';
import { redisStatusStore } from './redis-status.js';
import { RunRegistry } from './registry.js';
import { redisRunLock } from './run-lock.js';
import { QueryService } from './service.js';
import { createSingleFlight, type SingleFlight } from './single-flight.js';
import { memoryStatusStore, type StatusStore } from './status.js';
import { type EventWatermarks, memoryWatermarks, redisWatermarks } from './watermark.js';

export type QueryRuntimeConfig = Pick<
  Config,
  'redisUrl' | 'redisKeyPrefix' | 'queryConcurrency' | 'queryTeamConcurrency' | 'queryCacheMaxBytes'
> &
  Partial<Pick<Config, 'queryTeamShare'>>;

export interface QueryRuntimeOptions {
  config: QueryRuntimeConfig;
  events: Pick<EventsStore, 'running'>;
  /** Carries cancels to the node running a query; must be the Redis bus when REDIS_URL is set. */
  bus: Bus;
  now?: () => Date;
  exposeError?: (error: unknown) => string | null;
  /** A background query failed without a message it may show (logged by the server). */
  onHiddenError?: (error: unknown, query: { teamId: number; queryId: string }) => void;
  progressIntervalMs?: number;
  /** Writing a project's event watermark to Redis failed (cached results then age by thresholds). */
  onWatermarkError?: (error: unknown) => void;
}

export interface QueryRuntime {
  service: QueryService;
  cache: QueryCache;
  statuses: StatusStore;
  flight: SingleFlight;
  executor: QueryExecutor;
  /** Bumped by capture when a project's events are acknowledged; read before serving a cached result. */
  watermarks: EventWatermarks;
  ping(): Promise<void>;
  /** Aborts queries still running here and closes the Redis connection. */
  close(): Promise<void>;
}

/**
 * Assembles the query service: in memory by default; with `REDIS_URL` the cache, statuses and the
 * single-flight lease live in Redis, so that every node shares them.
 */
export async function createQueryRuntime(options: QueryRuntimeOptions): Promise<QueryRuntime> {
  const { config } = options;
  const now = options.now ?? (() => new Date());
  let redis: Redis | undefined;
  if (config.redisUrl) {
    redis = new Redis(config.redisUrl, {
      lazyConnect: true,
      maxRetriesPerRequest: 2,
      enableOfflineQueue: false,
    });
    await redis.connect();
  }
  const prefix = config.redisKeyPrefix;
  const cache = redis ? redisCache(redis, prefix) : memoryCache(config.queryCacheMaxBytes, now);
  const statuses = redis
    ? redisStatusStore(redis, prefix, now)
    : memoryStatusStore(config.queryCacheMaxBytes, now);
  const watermarks = redis
    ? redisWatermarks(redis, prefix, { onError: options.onWatermarkError })
    : memoryWatermarks();
  const flight = createSingleFlight(redis ? redisRunLock(redis, prefix) : undefined);
  const executor = new QueryExecutor({
    concurrency: config.queryConcurrency,
    perTeam: config.queryTeamConcurrency,
    ...(config.queryTeamShare !== undefined && { share: config.queryTeamShare }),
  });
  const registry = new RunRegistry();
  const background = new BackgroundQueries({
    statuses,
    executor,
    flight,
    registry,
    events: options.events,
    now,
    exposeError: options.exposeError,
    onHiddenError: options.onHiddenError,
    progressIntervalMs: options.progressIntervalMs,
  });
  const control = new QueryControl({ statuses, bus: options.bus, registry, now });
  await control.start();
  const service = new QueryService({
    cache,
    statuses,
    flight,
    executor,
    registry,
    background,
    control,
    now,
    watermarks,
  });
  return {
    service,
    cache,
    statuses,
    flight,
    executor,
    watermarks,
    async ping() {
      if (redis) await redis.ping();
    },
    async close() {
      await service.close();
      await Promise.allSettled([cache.close(), statuses.close(), watermarks.close()]);
      await redis?.quit().catch(() => {});
    },
  };
}
