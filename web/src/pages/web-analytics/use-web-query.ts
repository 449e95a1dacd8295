import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiFailure, runQuery } from '../../api';
import { useSession } from '../../session';

/** Waits `ms`, or stops early (AbortError) when the tile's query is superseded. */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new DOMException('Cancelled', 'AbortError'));
      },
      { once: true },
    );
  });

/**
 * The page's queries in flight at once. The server queues at most QUERY_TEAM_CONCURRENCY (8 by
 * default) of a project's calculations and runs QUERY_TEAM_SHARE (2) of them, so more in flight
 * buys nothing on a cold cache and, with another tab open, trips its 429; on a warm cache each
 * answer takes milliseconds, so four at a time load the page as fast as all at once.
 */
const IN_FLIGHT = 4;
let inFlight = 0;
const waiting: (() => void)[] = [];

/** Resolves once one of the page's IN_FLIGHT places is this caller's; the caller must free it. */
function takePlace(signal: AbortSignal): Promise<void> {
  if (inFlight < IN_FLIGHT) {
    inFlight++;
    return Promise.resolve();
  }
  return new Promise<void>((resolve, reject) => {
    const granted = () => {
      signal.removeEventListener('abort', leave);
      resolve();
    };
    // A tile superseded while it waits leaves the line without ever asking.
    const leave = () => {
      const at = waiting.indexOf(granted);
      if (at >= 0) waiting.splice(at, 1);
      reject(new DOMException('Cancelled', 'AbortError'));
    };
    waiting.push(granted);
    signal.addEventListener('abort', leave, { once: true });
  });
}

function freePlace() {
  const next = waiting.shift();
  if (next) next();
  else inFlight--;
}

/**
 * Runs a query of the page, at most IN_FLIGHT at once (in the order the tiles asked), and asks
 * again after a 429: another tab or person may fill the project's queue all the same.
 */
export async function queryWithRetry<T>(
  projectId: number,
  query: object,
  signal: AbortSignal,
  refresh = 'blocking',
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    await takePlace(signal);
    try {
      return await runQuery<T>(projectId, query, { signal, refresh });
    } catch (e) {
      if (!(e instanceof ApiFailure && e.status === 429) || attempt >= 6) throw e;
    } finally {
      freePlace();
    }
    await pause(200 * 2 ** attempt * (0.75 + Math.random() / 2), signal);
  }
}

/**
 * Runs one tile's query on the project's `/query/`. Every tile calls this on mount, so a view's
 * queries all go out in one round, IN_FLIGHT at a time; `blocking` answers from the query cache
 * while fresh, without taking a place in the server's queue.
 */
export function useWebQuery<T>(query: object) {
  const { team } = useSession();
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [version, setVersion] = useState(0);
  const key = JSON.stringify(query);
  useEffect(() => {
    const controller = new AbortController();
    setData(null);
    setError(null);
    queryWithRetry<T>(team.id, query, controller.signal).then(setData, (e) => {
      if ((e as Error).name !== 'AbortError') setError(e);
    });
    return () => controller.abort();
  }, [team.id, key, version]);
  const retry = useCallback(() => setVersion((v) => v + 1), []);
  return { data, error, retry };
}
