/**
 * Per-user limits of draft_sql, in memory (each node counts its own): like PostHog's AI throttles,
 * a burst rule and a daily one, each a sliding window over the requests it let through. Refused
 * requests are not counted, so a client that waits `Retry-After` gets in.
 */
export interface LimitRule {
  /** Requests allowed per window; 0 turns the rule off. */
  limit: number;
  windowMs: number;
}

export type LimitVerdict = { allowed: true } | { allowed: false; retryAfterMs: number };

export interface Limiter {
  take(key: string, nowMs: number): LimitVerdict;
}

export function createLimiter(rules: LimitRule[], maxKeys = 100_000): Limiter {
  const active = rules.filter((r) => r.limit > 0);
  const horizon = Math.max(0, ...active.map((r) => r.windowMs));
  /** Times of let-through requests per key, oldest first, none older than `horizon`. */
  const hits = new Map<string, number[]>();

  const sweep = (nowMs: number) => {
    for (const [key, times] of hits) {
      if ((times[times.length - 1] ?? 0) <= nowMs - horizon) hits.delete(key);
    }
    // Still full of live keys: forget the longest-known ones rather than grow without bound.
    for (const key of hits.keys()) {
      if (hits.size <= maxKeys) break;
      hits.delete(key);
    }
  };

  return {
    take(key, nowMs) {
      if (!active.length) return { allowed: true };
      let times = hits.get(key);
      if (!times) {
        if (hits.size >= maxKeys) sweep(nowMs);
        times = [];
        hits.set(key, times);
      }
      while (times.length && (times[0] as number) <= nowMs - horizon) times.shift();
      let wait = 0;
      for (const rule of active) {
        const inWindow = times.filter((t) => t > nowMs - rule.windowMs);
        if (inWindow.length >= rule.limit) {
          // Free again once the oldest request this rule still counts leaves its window.
          const oldest = inWindow[inWindow.length - rule.limit] as number;
          wait = Math.max(wait, oldest + rule.windowMs - nowMs);
        }
      }
      if (wait > 0) return { allowed: false, retryAfterMs: wait };
      times.push(nowMs);
      return { allowed: true };
    },
  };
}
