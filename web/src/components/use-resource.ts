import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { get } from '../api';

/**
 * Loads a resource when the page opens (and when its path changes) and keeps the error beside it;
 * `reload` after a change, `setError` for an action's failure shown in the same place.
 * A new path is a new resource: the old one's data and error go at once (the page shows its loading
 * state, not the last search's rows), and an answer for a path no longer asked for is dropped, so
 * a slow earlier answer cannot overwrite a later one.
 */
export function useResource<T>(path: string) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const current = useRef(path);
  current.current = path;
  const reload = useCallback(
    () =>
      get<T>(path).then(
        (d) => {
          if (current.current === path) setData(d);
        },
        (e) => {
          if (current.current === path) setError(e);
        },
      ),
    [path],
  );
  useEffect(() => {
    setData(null);
    setError(null);
    void reload();
  }, [reload]);
  return { data, error, setError, reload };
}

/** A list endpoint's page of `results`, loaded as `useResource` does; null until it arrives. */
export function useList<T>(path: string) {
  const { data, ...rest } = useResource<{ results: T[] }>(path);
  return { list: data?.results ?? null, ...rest };
}
