import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure, api, type HogQLResult } from '../api';

export type Refresh = 'blocking' | 'force_blocking';

/** Runs a HogQL query for the current project; re-runs on `every` ms when given (live views). */
export function useHogQL(
  projectId: number,
  query: string,
  options: { every?: number; refresh?: Refresh } = {},
) {
  const [data, setData] = useState<HogQLResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const controller = useRef<AbortController | null>(null);
  const run = useCallback(async () => {
    controller.current?.abort();
    const abort = new AbortController();
    controller.current = abort;
    setLoading(true);
    try {
      const ask = () =>
        api<HogQLResult>(
          'POST',
          `/api/environments/${projectId}/query/`,
          { query: { kind: 'HogQLQuery', query }, refresh: options.refresh ?? 'blocking' },
          { signal: abort.signal },
        );
      // A full project queue (429) empties in moments: a page with many tiles (Home with web
      // analytics) fires more at once than a small server queues, so ask again a few times.
      let result: HogQLResult | undefined;
      for (let attempt = 0; result === undefined; attempt++) {
        try {
          result = await ask();
        } catch (e) {
          if (!(e instanceof ApiFailure && e.status === 429) || attempt >= 5 || abort.signal.aborted) throw e;
          await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
        }
      }
      setData(result);
      setError(null);
    } catch (e) {
      if ((e as Error).name !== 'AbortError') setError(e);
    } finally {
      if (controller.current === abort) setLoading(false);
    }
  }, [projectId, query, options.refresh]);
  useEffect(() => {
    void run();
    if (!options.every) return () => controller.current?.abort();
    // Polling pauses while the tab is hidden: nobody is looking, and it keeps the server quiet.
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void run();
    }, options.every);
    return () => {
      clearInterval(timer);
      controller.current?.abort();
    };
  }, [run, options.every]);
  return { data, error, loading, run };
}
