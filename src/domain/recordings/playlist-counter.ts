import { scopedEvents } from '../../store/events/scoped.js';
import { claimPlaylistCount, playlistsDueForCount, saveCounts } from '../../store/meta/playlist-counts.js';
import type { PlaylistCounts, PlaylistRecord } from '../../store/meta/playlists.js';
import { findTeam } from '../../store/meta/teams.js';
import type { Deps } from '../deps.js';
import { parseRecordingFilters } from './filters.js';
import { searchSessionIds } from './query.js';
import { toSearch } from './search.js';

/** How many matching session ids a count keeps; beyond it the count says `has_more`. */
export const COUNT_LIMIT = 1000;
/** A playlist whose count failed this many times in a row is left alone until its filters change. */
export const MAX_COUNT_ERRORS = 5;

export interface CountOptions {
  /** A count older than this is recomputed. */
  maxAgeMs: number;
  /** Playlists counted per run at most. */
  batch: number;
  onError?: (error: unknown, playlist: PlaylistRecord) => void;
}

async function countOne(deps: Deps, p: PlaylistRecord, at: string, options: CountOptions): Promise<boolean> {
  const team = await findTeam(deps.meta, p.teamId);
  if (!team) return false;
  const before = p.counts;
  try {
    const { query } = parseRecordingFilters(p.filters, 'filters');
    const search = await toSearch(
      deps,
      team,
      { ...query, order: 'start_time', direction: 'DESC' },
      {
        limit: COUNT_LIMIT + 1,
        offset: 0,
      },
    );
    const rows = await searchSessionIds(scopedEvents(deps.events, { teamId: team.id }), search);
    const ids = rows.slice(0, COUNT_LIMIT);
    const counts: PlaylistCounts = {
      count: ids.length,
      has_more: rows.length > COUNT_LIMIT,
      previous_count: before?.refreshed_at ? before.count : null,
      refreshed_at: at,
      errored_at: null,
      error_count: 0,
    };
    return await saveCounts(deps.meta, p.id, at, counts, ids);
  } catch (error) {
    options.onError?.(error, p);
    const failed: PlaylistCounts = {
      count: before?.count ?? 0,
      has_more: before?.has_more ?? false,
      previous_count: before?.previous_count ?? null,
      refreshed_at: before?.refreshed_at ?? null,
      errored_at: at,
      error_count: (before?.error_count ?? 0) + 1,
    };
    await saveCounts(deps.meta, p.id, at, failed, null);
    return false;
  }
}

/**
 * One pass of the background counter: every filters playlist whose count is missing or stale is
 * claimed (so that several nodes never count the same one) and counted against the events store.
 * Returns how many counts were stored.
 */
export async function countDuePlaylists(deps: Deps, options: CountOptions): Promise<number> {
  const cutoff = new Date(deps.now().getTime() - options.maxAgeMs).toISOString();
  const due = await playlistsDueForCount(deps.meta, cutoff, MAX_COUNT_ERRORS, options.batch);
  let stored = 0;
  for (const p of due) {
    const at = deps.now().toISOString();
    if (!(await claimPlaylistCount(deps.meta, p.id, p.lastCountedAt, at))) continue;
    if (await countOne(deps, p, at, options)) stored += 1;
  }
  return stored;
}
