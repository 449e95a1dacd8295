import { useEffect, useRef, useState } from 'preact/hooks';

/** "just now", "3 minutes ago", "2 hours ago", "4 days ago": how long since `at`. */
export function ago(at: Date, now: Date): string {
  const seconds = Math.max(0, (now.getTime() - at.getTime()) / 1000);
  if (seconds < 45) return 'just now';
  const [n, unit] =
    seconds < 3600
      ? [Math.max(1, Math.round(seconds / 60)), 'minute']
      : seconds < 86_400
        ? [Math.round(seconds / 3600), 'hour']
        : [Math.round(seconds / 86_400), 'day'];
  return `${n} ${unit}${n === 1 ? '' : 's'} ago`;
}

/** A query answer's `last_refresh`, when it has one. */
export const lastRefreshOf = (answer: unknown): string | null => {
  const value = (answer as { last_refresh?: unknown } | null)?.last_refresh;
  return typeof value === 'string' ? value : null;
};

/** The oldest of several answers' `last_refresh` (a dashboard is as fresh as its oldest tile). */
export const oldestRefresh = (values: (string | null | undefined)[]): string | null =>
  values.filter((v): v is string => typeof v === 'string').sort()[0] ?? null;

/** The exact moment, in the browser's zone and saying which (times elsewhere may use the project's). */
const exact = (at: Date) => at.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'long' });

/** The current time, ticking every `everyMs` while mounted (relative labels stay true). */
function useNow(everyMs: number): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/**
 * A pending "calculate anew" request for a page whose query runs from an effect: `request()` marks
 * the next run forced and bumps `attempt` (put it in the effect's dependencies); `take()`, in the
 * effect, answers the refresh mode for that run once.
 */
export function useForcedRefresh() {
  const forced = useRef(false);
  const [attempt, setAttempt] = useState(0);
  return {
    attempt,
    request() {
      forced.current = true;
      setAttempt((n) => n + 1);
    },
    take(): 'force_blocking' | undefined {
      const mode = forced.current ? 'force_blocking' : undefined;
      forced.current = false;
      return mode;
    },
  };
}

/**
 * When a result was computed (relative, exact time in the title) and a Refresh that forces a new
 * calculation. Results are otherwise served from the server's cache until they go stale.
 */
export function Freshness({
  computedAt,
  busy,
  onRefresh,
  what = 'Computed',
}: {
  /** ISO 8601 (`last_refresh`); nothing is said about the age while unknown. */
  computedAt: string | null | undefined;
  busy: boolean;
  onRefresh: () => void;
  what?: string;
}) {
  const now = useNow(15_000);
  const at = computedAt ? new Date(computedAt) : null;
  const valid = at !== null && !Number.isNaN(at.getTime());
  return (
    <div class="freshness">
      {valid && (
        <span class="muted small">
          {what}{' '}
          <time dateTime={at.toISOString()} title={exact(at)}>
            {ago(at, now)}
          </time>
        </span>
      )}
      <button type="button" onClick={onRefresh} disabled={busy} aria-busy={busy}>
        {busy ? 'Refreshing…' : 'Refresh'}
      </button>
    </div>
  );
}
