import { useEffect, useState } from 'preact/hooks';
import type { HogQLResult } from '../../api';
import { useSession } from '../../session';
import { queryWithRetry } from './use-web-query';

/** Distinct persons with an event in the last 5 minutes. */
export const LIVE_SQL =
  'SELECT count(DISTINCT person_id) FROM events WHERE timestamp > now() - INTERVAL 5 MINUTE';
const EVERY_MS = 30_000;

/** The live count, asked again every 30 s while the tab is visible (nobody looks at a hidden one). */
export function LiveVisitors() {
  const { team } = useSession();
  const [count, setCount] = useState<number | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let controller = new AbortController();
    const run = () => {
      controller.abort();
      controller = new AbortController();
      queryWithRetry<HogQLResult>(
        team.id,
        { kind: 'HogQLQuery', query: LIVE_SQL },
        controller.signal,
        'force_blocking',
      ).then(
        (r) => {
          setCount(Number(r.results[0]?.[0] ?? 0));
          setFailed(false);
        },
        (e) => {
          if ((e as Error).name !== 'AbortError') setFailed(true);
        },
      );
    };
    run();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') run();
    }, EVERY_MS);
    return () => {
      clearInterval(timer);
      controller.abort();
    };
  }, [team.id]);
  return (
    <p class="wa-live" role="status" title="Persons with an event in the last 5 minutes">
      <span class="live-dot" aria-hidden="true" />
      {failed && count == null
        ? 'Live visitors unavailable'
        : count == null
          ? 'Counting live visitors…'
          : `${count.toLocaleString()} live ${count === 1 ? 'visitor' : 'visitors'}`}
    </p>
  );
}
