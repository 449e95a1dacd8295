import type { MetaDb } from '../../store/meta/db.js';
import { teamsWithDestinations } from '../../store/meta/hog-functions.js';

/**
 * Which projects have realtime destinations (an enabled destination, or an action posting to
 * Slack), read again every `refreshMs`: capture's journal matches their events as soon as they are
 * durable, without waiting for the insert (docs/destinations.md). A destination enabled on any
 * node is seen here within `refreshMs`; until then its events are matched with the insert.
 */
export function startLiveTeams(
  meta: MetaDb,
  opts: { refreshMs: number; onError?: (error: unknown) => void },
) {
  let teams = new Set<number>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const refresh = async () => {
    try {
      teams = new Set(await teamsWithDestinations(meta));
    } catch (error) {
      opts.onError?.(error);
    }
  };
  const loop = () => {
    if (stopped) return;
    timer = setTimeout(() => void refresh().finally(loop), opts.refreshMs);
    timer.unref?.();
  };
  void refresh().finally(loop);
  return {
    has: (teamId: number) => teams.has(teamId),
    refresh,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
