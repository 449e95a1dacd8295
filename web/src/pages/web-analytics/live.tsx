import { useHogQL } from '../../components/use-query';
import { useSession } from '../../session';

/** Distinct persons with an event in the last 5 minutes, every 30 s while the tab is visible. */
export const LIVE_SQL =
  'SELECT count(DISTINCT person_id) FROM events WHERE timestamp > now() - INTERVAL 5 MINUTE';

export function LiveVisitors() {
  const { team } = useSession();
  const { data, error } = useHogQL(team.id, LIVE_SQL, { every: 30_000, refresh: 'force_blocking' });
  const n = data ? Number(data.results[0]?.[0] ?? 0) : null;
  return (
    <p class="wa-live" role="status" title="Persons with an event in the last 5 minutes">
      <span class="live-dot" aria-hidden="true" />
      {error
        ? 'Live visitors unavailable'
        : n == null
          ? 'Counting live visitors…'
          : `${n.toLocaleString()} live ${n === 1 ? 'visitor' : 'visitors'}`}
    </p>
  );
}
