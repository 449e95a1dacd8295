import { LRUCache } from 'lru-cache';

/**
 * Fixed-window counters for rate limits. In memory they count per process; with Redis every node
 * sharing `prefix` counts together, so a limit holds however many nodes serve the API.
 */
export interface Counters {
  /** Counts one more hit on `key` and says how many there were in the current window. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetInMs: number }>;
  /** Takes back one hit on `key` in its current window (nothing if the window has ended). */
  refund(key: string): Promise<void>;
  close(): Promise<void>;
}

/** How many keys the in-memory counters keep at most (the least recently hit go first). */
export const MEMORY_COUNTER_KEYS = 100_000;

/**
 * In memory: an LRU of at most `maxKeys` windows, each expiring with its window, so memory is
 * bounded and a hit costs O(1) however many keys are tracked. When more keys than that are live,
 * the least recently hit lose their counts (an attacker rotating that many keys is throttled by the
 * per-IP key first).
 */
export function memoryCounters(now: () => number = Date.now, maxKeys = MEMORY_COUNTER_KEYS): Counters {
  // Created on the first hit: lru-cache allocates its arrays for `max` keys up front (~15 ms of
  // every start for 100 000 keys), and most starts see no login or signup for a while.
  let lru: LRUCache<string, { count: number; resetAt: number }> | undefined;
  const windows = () => {
    lru ??= new LRUCache({ max: maxKeys });
    return lru;
  };
  return {
    async hit(key, windowMs) {
      const at = now();
      let w = windows().get(key);
      if (!w || w.resetAt <= at) {
        w = { count: 0, resetAt: at + windowMs };
        // The TTL frees an ended window's memory (lazily); `resetAt` on our clock decides.
        windows().set(key, w, { ttl: windowMs });
      }
      w.count++;
      return { count: w.count, resetInMs: w.resetAt - at };
    },
    async refund(key) {
      const w = lru?.peek(key);
      if (w && w.resetAt > now() && w.count > 0) w.count--;
    },
    async close() {
      lru?.clear();
    },
  };
}

const REFUND =
  "if redis.call('pttl', KEYS[1]) > 0 and tonumber(redis.call('get', KEYS[1])) > 0 then return redis.call('decr', KEYS[1]) end return 0";

export async function redisCounters(url: string, prefix: string): Promise<Counters> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: false });
  await redis.connect();
  return {
    async hit(key, windowMs) {
      const full = `${prefix}counter:${key}`;
      // One round trip, applied atomically: the window starts with the first hit and never slides.
      const replies = await redis.multi().set(full, '0', 'PX', windowMs, 'NX').incr(full).pttl(full).exec();
      if (!replies || replies.some(([error]) => error)) throw new Error('rate limit counter failed');
      const count = Number(replies[1]?.[1]);
      const ttl = Number(replies[2]?.[1]);
      return { count, resetInMs: ttl > 0 ? ttl : windowMs };
    },
    async refund(key) {
      // Only inside a live window: a DECR on an expired key would create one without a TTL.
      await redis.eval(REFUND, 1, `${prefix}counter:${key}`);
    },
    async close() {
      await redis.quit().catch(() => {});
    },
  };
}
