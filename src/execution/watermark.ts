import type { Redis } from 'ioredis';

/**
 * Per project, when this deployment last acknowledged (or inserted) new events: a cached result
 * calculated before that moment may miss them. Capture bumps it; the query service reads it.
 */
export interface EventWatermarks {
  kind: 'memory' | 'redis';
  /** New events of `teamId` became readable at `at`. Cheap and synchronous: never awaited by capture. */
  bump(teamId: number, at: Date): void;
  /** The latest bump for the project (from any node sharing the store), or null. */
  latest(teamId: number): Promise<Date | null>;
  /** Writes what is still throttled, then stops. */
  close(): Promise<void>;
}

/** One node: a map read and written in place. */
export function memoryWatermarks(): EventWatermarks {
  const marks = new Map<number, number>();
  return {
    kind: 'memory',
    bump(teamId, at) {
      const ms = at.getTime();
      if ((marks.get(teamId) ?? 0) < ms) marks.set(teamId, ms);
    },
    async latest(teamId) {
      const ms = marks.get(teamId);
      return ms === undefined ? null : new Date(ms);
    },
    async close() {
      marks.clear();
    },
  };
}

/** At most one Redis write per project per this many milliseconds (capture floods bump per request). */
export const WATERMARK_WRITE_MS = 100;

/**
 * Shared by every node on the same Redis and prefix: one sorted set, project id → milliseconds.
 * `ZADD GT` only ever raises a score, so nodes writing out of order never move a mark back.
 * Writes are throttled per project (the first at once, later ones coalesced into one trailing
 * write), so a reader on another node sees a bump within about WATERMARK_WRITE_MS; this node reads
 * its own pending bumps without waiting.
 */
export function redisWatermarks(
  redis: Redis,
  prefix: string,
  options: { writeMs?: number; onError?: (error: unknown) => void } = {},
): EventWatermarks {
  const key = `${prefix}event_watermarks`;
  const writeMs = options.writeMs ?? WATERMARK_WRITE_MS;
  /** The latest bump made on this node, per project (also what a pending write will send). */
  const local = new Map<number, number>();
  /** Projects with a write scheduled, and when their last write was sent. */
  const timers = new Map<number, NodeJS.Timeout>();
  const lastWrite = new Map<number, number>();
  const pending = new Set<Promise<unknown>>();

  const write = (teamId: number) => {
    timers.delete(teamId);
    lastWrite.set(teamId, Date.now());
    const ms = local.get(teamId);
    if (ms === undefined) return;
    const sent = redis
      .zadd(key, 'GT', ms, String(teamId))
      .catch((error) => options.onError?.(error))
      .finally(() => pending.delete(sent));
    pending.add(sent);
  };

  return {
    kind: 'redis',
    bump(teamId, at) {
      const ms = at.getTime();
      if ((local.get(teamId) ?? 0) >= ms) return;
      local.set(teamId, ms);
      if (timers.has(teamId)) return;
      const wait = (lastWrite.get(teamId) ?? 0) + writeMs - Date.now();
      if (wait <= 0) write(teamId);
      else timers.set(teamId, setTimeout(() => write(teamId), wait).unref());
    },
    async latest(teamId) {
      const score = await redis.zscore(key, String(teamId));
      const shared = score === null ? 0 : Number(score);
      const ms = Math.max(shared, local.get(teamId) ?? 0);
      return ms > 0 ? new Date(ms) : null;
    },
    async close() {
      for (const [teamId, timer] of timers) {
        clearTimeout(timer);
        write(teamId);
      }
      await Promise.allSettled([...pending]);
    },
  };
}
