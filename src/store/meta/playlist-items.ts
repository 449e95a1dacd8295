import type { MetaDb } from './db.js';

/** Pins a recording; true when it was not pinned yet (pinning twice is not an error). */
export async function addPlaylistItem(
  db: MetaDb,
  playlistId: number,
  sessionId: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .insertInto('session_recording_playlist_items')
    .values({ playlist_id: playlistId, session_id: sessionId, created_at: at })
    .onConflict((oc) => oc.columns(['playlist_id', 'session_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function removePlaylistItems(
  db: MetaDb,
  playlistId: number,
  sessionIds: string[],
): Promise<number> {
  if (sessionIds.length === 0) return 0;
  const result = await db
    .deleteFrom('session_recording_playlist_items')
    .where('playlist_id', '=', playlistId)
    .where('session_id', 'in', sessionIds)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Session ids pinned to a playlist, newest pin first. */
export async function playlistSessionIds(db: MetaDb, playlistId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('session_recording_playlist_items')
    .select('session_id')
    .where('playlist_id', '=', playlistId)
    .orderBy('created_at', 'desc')
    .orderBy('session_id', 'asc')
    .execute();
  return rows.map((r) => r.session_id);
}
