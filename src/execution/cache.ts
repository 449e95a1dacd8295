import { LRUCache } from 'lru-cache';

/** One calculated result as kept in the cache. */
export interface CacheEntry<R = unknown> {
  /** What the runner returned (results, columns, hogql, ...), without the cache fields. */
  result: R;
  /** When it was calculated (ISO 8601). */
  lastRefresh: string;
  /** The calculation that wrote it, so a node waiting on another's run knows it got that run. */
  runId: string;
  /**
   * When the engine began reading (ISO 8601): events acknowledged after it may be missing from the
   * result (watermark.ts). Absent in entries written before this field existed: `lastRefresh` then.
   */
  startedAt?: string;
}

/**
 * Calculated results by cache key. Entries are stored serialised, so a reader can never change what
 * another reader gets, and the memory backend can count bytes exactly.
 */
export interface QueryCache {
  kind: 'memory' | 'redis';
  get<R = unknown>(key: string): Promise<CacheEntry<R> | null>;
  set(key: string, entry: CacheEntry): Promise<void>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

/** Results older than this are dropped even when never stale (a year-old dashboard tile). */
export const CACHE_TTL_MS = 3 * 24 * 3600_000;

/**
 * In-process LRU bounded by the UTF-8 size of the stored JSON; a single result larger than the
 * whole budget is not cached at all.
 */
export function memoryCache(maxBytes: number, now: () => Date = () => new Date()): QueryCache {
  const lru = new LRUCache<string, string>({
    maxSize: maxBytes,
    sizeCalculation: (value, key) => Buffer.byteLength(value) + Buffer.byteLength(key),
    ttl: CACHE_TTL_MS,
    ttlResolution: 0,
    perf: { now: () => now().getTime() },
  });
  return {
    kind: 'memory',
    async get<R>(key: string) {
      const raw = lru.get(key);
      return raw === undefined ? null : (JSON.parse(raw) as CacheEntry<R>);
    },
    async set(key, entry) {
      lru.set(key, JSON.stringify(entry));
    },
    async delete(key) {
      lru.delete(key);
    },
    async close() {
      lru.clear();
    },
  };
}
