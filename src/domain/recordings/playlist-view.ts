import { pinCounts, watchedMatches, watchedPins } from '../../store/meta/playlist-stats.js';
import type { PlaylistRecord } from '../../store/meta/playlists.js';
import { findUser, type UserRecord } from '../../store/meta/users.js';
import type { Deps } from '../deps.js';
import type { Principal } from '../principal.js';

export interface RecordingsCounts {
  saved_filters: {
    count: number | null;
    has_more: boolean | null;
    watched_count: number | null;
    increased: boolean | null;
    last_refreshed_at: string | null;
  };
  collection: { count: number | null; watched_count: number | null };
}

export interface PlaylistView extends PlaylistRecord {
  createdByUser: UserRecord | null;
  lastModifiedByUser: UserRecord | null;
  recordingsCounts: RecordingsCounts;
}

/**
 * What a page of playlists looks like to a user: its people and `recordings_counts`. Counts come
 * from the pins and the background counter's stored result (a few grouped queries per page),
 * never from a scan of the events store.
 */
export async function viewPlaylists(
  deps: Deps,
  principal: Principal,
  playlists: PlaylistRecord[],
): Promise<PlaylistView[]> {
  const ids = playlists.map((p) => p.id);
  const teamId = playlists[0]?.teamId ?? 0;
  const userId = principal.user.id;
  const [pins, seenPins, seenMatches] = await Promise.all([
    pinCounts(deps.meta, ids),
    watchedPins(deps.meta, teamId, userId, ids),
    watchedMatches(deps.meta, teamId, userId, ids),
  ]);
  const users = new Map<number, Promise<UserRecord | undefined>>();
  const user = async (id: number | null) => {
    if (id === null) return null;
    if (!users.has(id)) users.set(id, findUser(deps.meta, id));
    return (await users.get(id)) ?? null;
  };
  const views: PlaylistView[] = [];
  for (const p of playlists) {
    const pinned = pins.get(p.id) ?? 0;
    // As in PostHog, a playlist with pins shows no saved-filter count.
    const c = pinned === 0 && p.counts?.refreshed_at ? p.counts : null;
    views.push({
      ...p,
      createdByUser: await user(p.createdBy),
      lastModifiedByUser: await user(p.lastModifiedBy),
      recordingsCounts: {
        collection: { count: pinned > 0 ? pinned : null, watched_count: seenPins.get(p.id) ?? 0 },
        saved_filters: {
          count: c ? c.count : null,
          has_more: c ? c.has_more : null,
          watched_count: c ? (seenMatches.get(p.id) ?? 0) : null,
          increased: c ? c.previous_count !== null && c.count > c.previous_count : null,
          last_refreshed_at: c ? c.refreshed_at : null,
        },
      },
    });
  }
  return views;
}
