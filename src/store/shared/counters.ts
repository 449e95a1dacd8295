/**
 * Fixed-window counters for rate limits. In memory they count per process; with Redis every node
 * sharing `prefix` counts together, so a limit holds however many nodes serve the API.
 */
export interface Counters {
  /** Counts one more hit on `key` and says how many there were in the current window. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetInMs: number }>;
  close(): Promise<void>;
}

export function memoryCounters(now: () => number = Date.now): Counters {
  const windows = new Map<string, { count: number; resetAt: number }>();
  const prune = (at: number) => {
    for (const [key, w] of windows) if (w.resetAt <= at) windows.delete(key);
  };
  return {
    async hit(key, windowMs) {
      const at = now();
      if (windows.size > 10_000) prune(at);
      let w = windows.get(key);
      if (!w || w.resetAt <= at) {
        w = { count: 0, resetAt: at + windowMs };
        windows.set(key, w);
      }
      w.count++;
      return { count: w.count, resetInMs: w.resetAt - at };
    },
    async close() {
      windows.clear();
    },
  };
}

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
    async close() {
      await redis.quit().catch(() => {});
    },
  };
}
