import { useCallback, useEffect, useState } from 'preact/hooks';
import { runQuery } from '../../api';
import { useSession } from '../../session';

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
    runQuery<T>(team.id, query, { signal: controller.signal, refresh: 'blocking' }).then(setData, (e) => {
      if ((e as Error).name !== 'AbortError') setError(e);
    });
    return () => controller.abort();
  }, [team.id, key, version]);
  const retry = useCallback(() => setVersion((v) => v + 1), []);
  return { data, error, retry };
}
