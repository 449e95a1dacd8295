import { useCallback, useEffect, useState } from 'preact/hooks';
import { get } from '../api';

/**
 * Loads a resource when the page opens (and when its path changes) and keeps the error beside it;
 * `reload` after a change, `setError` for an action's failure shown in the same place.
 */
export function useResource<T>(path: string) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const reload = useCallback(() => get<T>(path).then(setData, setError), [path]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, setError, reload };
}

/** A list endpoint's page of `results`, loaded as `useResource` does; null until it arrives. */
export function useList<T>(path: string) {
  const { data, ...rest } = useResource<{ results: T[] }>(path);
  return { list: data?.results ?? null, ...rest };
}
