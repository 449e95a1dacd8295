import { validationError } from '../../errors.js';
import { addPlaylistItem, playlistSessionIds, removePlaylistItems } from '../../store/meta/playlist-items.js';
import type { PlaylistRecord } from '../../store/meta/playlists.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import type { Principal } from '../principal.js';
import { list, string } from './check.js';
import { DEFAULT_DATE_FROM } from './filter-types.js';
import { parseRecordingFilters } from './filters.js';
import { getPlaylist } from './playlists.js';
import { listRecordings, recordingNotFound } from './recordings.js';

const MAX_BULK = 20;

function requireCollection(playlist: PlaylistRecord): void {
  if (playlist.type === 'filters') {
    throw validationError("Cannot add recordings to a playlist that is type 'filters'.");
  }
}

/**
 * Pins a recording to a collection. As in PostHog, the id is not checked against the events
 * store: a recording can be pinned before its snapshots have all arrived.
 */
export async function pinRecording(deps: Deps, access: ProjectAccess, shortId: string, sessionId: string) {
  const playlist = await getPlaylist(deps, access, shortId);
  requireCollection(playlist);
  await addPlaylistItem(deps.meta, playlist.id, sessionId, deps.now().toISOString());
}

export async function unpinRecording(deps: Deps, access: ProjectAccess, shortId: string, sessionId: string) {
  const playlist = await getPlaylist(deps, access, shortId);
  await removePlaylistItems(deps.meta, playlist.id, [sessionId]);
}

function bulkIds(raw: unknown): string[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw validationError('session_recording_ids must be provided as a non-empty array');
  }
  if (raw.length > MAX_BULK) throw validationError(`Cannot process more than ${MAX_BULK} recordings at once`);
  return [
    ...new Set(
      list(raw, 'session_recording_ids', MAX_BULK).map((v, i) =>
        string(v, `session_recording_ids__${i}`, 200),
      ),
    ),
  ];
}

export async function bulkPin(deps: Deps, access: ProjectAccess, shortId: string, raw: unknown) {
  const ids = bulkIds(raw);
  const playlist = await getPlaylist(deps, access, shortId);
  requireCollection(playlist);
  const at = deps.now().toISOString();
  let added = 0;
  for (const id of ids) if (await addPlaylistItem(deps.meta, playlist.id, id, at)) added += 1;
  return { added, requested: (raw as unknown[]).length };
}

export async function bulkUnpin(deps: Deps, access: ProjectAccess, shortId: string, raw: unknown) {
  const ids = bulkIds(raw);
  const playlist = await getPlaylist(deps, access, shortId);
  requireCollection(playlist);
  return {
    deleted: await removePlaylistItems(deps.meta, playlist.id, ids),
    requested: (raw as unknown[]).length,
  };
}

/** The recordings a playlist collects: its pins (any age), or what its filters match now. */
export async function playlistRecordings(
  deps: Deps,
  access: ProjectAccess,
  principal: Principal,
  shortId: string,
  page: { limit: number; offset: number },
  only?: string,
) {
  const playlist = await getPlaylist(deps, access, shortId);
  if (playlist.type === 'filters') {
    const { query } = parseRecordingFilters(playlist.filters, 'filters');
    return listRecordings(deps, access, principal, only ? { ...query, sessionIds: [only] } : query, page);
  }
  const pinned = await playlistSessionIds(deps.meta, playlist.id);
  const sessionIds = only ? pinned.filter((id) => id === only) : pinned;
  const { query } = parseRecordingFilters({ date_from: DEFAULT_DATE_FROM }, 'filters');
  return listRecordings(deps, access, principal, { ...query, sessionIds }, page, { ignoreDates: true });
}

/** One recording of the playlist; 404 when the playlist does not collect it. */
export async function playlistRecording(
  deps: Deps,
  access: ProjectAccess,
  principal: Principal,
  shortId: string,
  sessionId: string,
) {
  const { results } = await playlistRecordings(
    deps,
    access,
    principal,
    shortId,
    { limit: 1, offset: 0 },
    sessionId,
  );
  if (!results[0]) throw recordingNotFound();
  return results[0];
}
