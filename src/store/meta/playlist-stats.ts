import type { MetaDb } from './db.js';

const byPlaylist = (rows: Array<{ playlist_id: number; n: number | string | bigint }>) =>
  new Map(rows.map((r) => [r.playlist_id, Number(r.n)]));

/** Pins per playlist, for a page of playlists. */
export async function pinCounts(db: MetaDb, playlistIds: number[]): Promise<Map<number, number>> {
  if (playlistIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('session_recording_playlist_items')
    .select(['playlist_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('playlist_id', 'in', playlistIds)
    .groupBy('playlist_id')
    .execute();
  return byPlaylist(rows);
}

/** How many of each playlist's pins the user has watched, joined in the database. */
export async function watchedPins(db: MetaDb, teamId: number, userId: number, ids: number[]) {
  if (ids.length === 0) return new Map<number, number>();
  const rows = await db
    .selectFrom('session_recording_playlist_items as s')
    .innerJoin('session_recording_views as v', 'v.session_id', 's.session_id')
    .select(['s.playlist_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('v.team_id', '=', teamId)
    .where('v.user_id', '=', userId)
    .where('s.playlist_id', 'in', ids)
    .groupBy('s.playlist_id')
    .execute();
  return byPlaylist(rows);
}

/** How many of each saved filter's last matches the user has watched. */
export async function watchedMatches(db: MetaDb, teamId: number, userId: number, ids: number[]) {
  if (ids.length === 0) return new Map<number, number>();
  const rows = await db
    .selectFrom('session_recording_playlist_matches as s')
    .innerJoin('session_recording_views as v', 'v.session_id', 's.session_id')
    .select(['s.playlist_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('v.team_id', '=', teamId)
    .where('v.user_id', '=', userId)
    .where('s.playlist_id', 'in', ids)
    .groupBy('s.playlist_id')
    .execute();
  return byPlaylist(rows);
}
