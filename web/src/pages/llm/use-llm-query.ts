import { useEffect, useState } from 'preact/hooks';
import { runQuery } from '../../api';
import { useSession } from '../../session';

/** Runs a query on the project's `/query/` (fresh), again when it or `version` changes. */
export function useLlmQuery<T>(query: object, version = 0) {
  const { team } = useSession();
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const key = JSON.stringify(query);
  useEffect(() => {
    const controller = new AbortController();
    setData(null);
    setError(null);
    runQuery<T>(team.id, query, { signal: controller.signal, refresh: 'force_blocking' }).then(
      setData,
      (e) => {
        if ((e as Error).name !== 'AbortError') setError(e);
      },
    );
    return () => controller.abort();
  }, [team.id, key, version]);
  return { data, error };
}
