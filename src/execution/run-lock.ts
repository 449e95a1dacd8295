import type { Redis } from 'ioredis';

/** A lease per key so that only one node at a time calculates it. */
export interface RunLock {
  /** Takes the lease for `runId`; resolves null when taken, else with the run id holding it. */
  tryAcquire(key: string, runId: string, ttlMs: number): Promise<string | null>;
  /** The run id holding the lease, or null. */
  holder(key: string): Promise<string | null>;
  renew(key: string, runId: string, ttlMs: number): Promise<void>;
  release(key: string, runId: string): Promise<void>;
}

// Only the holder may extend or drop its lease: a lease that expired and was taken by another
// node must survive the first holder's late release.
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

export function redisRunLock(redis: Redis, prefix: string): RunLock {
  const full = (key: string) => `${prefix}query_lock:${key}`;
  return {
    async tryAcquire(key, runId, ttlMs) {
      const taken = await redis.set(full(key), runId, 'PX', ttlMs, 'NX');
      if (taken === 'OK') return null;
      // Released between the SET and this GET: report a holder that is already gone, so the
      // caller looks for its result, finds none and tries again.
      return (await redis.get(full(key))) ?? '';
    },
    holder: (key) => redis.get(full(key)),
    async renew(key, runId, ttlMs) {
      await redis.eval(RENEW, 1, full(key), runId, String(ttlMs));
    },
    async release(key, runId) {
      await redis.eval(RELEASE, 1, full(key), runId);
    },
  };
}
