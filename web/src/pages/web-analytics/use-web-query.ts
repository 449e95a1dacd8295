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
 * Asks again when the project has too many queries queued (a 429): the page fires a dozen at once,
 * more than a project may queue on a small server, and the first ones finish in milliseconds.
 */
export async function queryWithRetry<T>(
  projectId: number,
  query: object,
  signal: AbortSignal,
  refresh = 'blocking',
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await runQuery<T>(projectId, query, { signal, refresh });
    } catch (e) {
      if (!(e instanceof ApiFailure && e.status === 429) || attempt >= 6) throw e;
      await pause(200 * 2 ** attempt * (0.75 + Math.random() / 2), signal);
    }
  }
}

/**
 * Runs one tile's query on the project's `/query/`. Every tile calls this on mount, so a view's
 * queries all go out at once, in one round; `blocking` answers from the query cache while fresh.
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
