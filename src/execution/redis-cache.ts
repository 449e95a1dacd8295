import type { Redis } from 'ioredis';
import { CACHE_TTL_MS, type CacheEntry, type QueryCache } from './cache.js';

/**
 * Results shared by every node using the same Redis and prefix. Memory is bounded by Redis itself
 * (maxmemory with an LRU policy); every entry also expires after CACHE_TTL_MS.
 */
export function redisCache(redis: Redis, prefix: string): QueryCache {
  const full = (key: string) => `${prefix}query_cache:${key}`;
  return {
    kind: 'redis',
    async get<R>(key: string) {
      const raw = await redis.get(full(key));
      return raw === null ? null : (JSON.parse(raw) as CacheEntry<R>);
    },
    async set(key, entry) {
      await redis.set(full(key), JSON.stringify(entry), 'PX', CACHE_TTL_MS);
    },
    async delete(key) {
      await redis.del(full(key));
    },
    async close() {},
  };
}
