import { toJson } from './codec.js';
import type { MetaDb } from './db.js';
import { type PlaylistCounts, type PlaylistRecord, toPlaylist } from './playlists.js';

/** Filters playlists whose count is missing or older than `cutoff`, never-counted ones first. */
export async function playlistsDueForCount(
  db: MetaDb,
  cutoff: string,
  maxErrors: number,
  limit: number,
): Promise<PlaylistRecord[]> {
  const rows = await db
    .selectFrom('session_recording_playlists')
    .selectAll()
    .where('type', '=', 'filters')
    .where('deleted', '=', false)
    .where('count_errors', '<', maxErrors)
    .where((eb) => eb.or([eb('last_counted_at', 'is', null), eb('last_counted_at', '<', cutoff)]))
    // NULLs sort first in SQLite and last in PostgreSQL; say it explicitly.
    .orderBy((eb) => eb.case().when('last_counted_at', 'is', null).then(0).else(1).end())
    .orderBy('last_counted_at', 'asc')
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
  return rows.map(toPlaylist);
}

/**
 * Takes the playlist for one count: only one node wins, because the update only applies while the
 * playlist is as it was read. `at` becomes the lease the result is written back under.
 */
export async function claimPlaylistCount(
  db: MetaDb,
  id: number,
  seen: string | null,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('session_recording_playlists')
    .set({ last_counted_at: at })
    .where('id', '=', id)
    .where((eb) => (seen === null ? eb('last_counted_at', 'is', null) : eb('last_counted_at', '=', seen)))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

const INSERT_ROWS = 400;

/**
 * Stores a count and, unless it failed (`sessionIds` null), the ids it matched, in one
 * transaction, unless the playlist changed meanwhile: new filters clear `last_counted_at`, so a
 * count of the old filters is dropped.
 */
export async function saveCounts(
  db: MetaDb,
  id: number,
  claimedAt: string,
  counts: PlaylistCounts,
  sessionIds: string[] | null,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('session_recording_playlists')
      .set({ counts: toJson(counts), count_errors: counts.error_count })
      .where('id', '=', id)
      .where('last_counted_at', '=', claimedAt)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    if (sessionIds) {
      await trx.deleteFrom('session_recording_playlist_matches').where('playlist_id', '=', id).execute();
      for (let i = 0; i < sessionIds.length; i += INSERT_ROWS) {
        const values = sessionIds.slice(i, i + INSERT_ROWS).map((s) => ({ playlist_id: id, session_id: s }));
        await trx.insertInto('session_recording_playlist_matches').values(values).execute();
      }
    }
    return true;
  });
}
