import { sql } from 'kysely';
import type { MetaDb } from './db.js';
import { type PlaylistRecord, type PlaylistType, toPlaylist } from './playlists.js';

/** `LIKE` pattern matching `text` anywhere, with the wildcards in it taken literally. */
const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const ilike = (column: string, text: string) =>
  sql<boolean>`lower(${sql.ref(column)}) like lower(${containsPattern(text)}) escape '\\'`;

/** Columns a list may be ordered by (`order=name`, `order=-created_at`). */
export const PLAYLIST_ORDER_COLUMNS = [
  'id',
  'short_id',
  'name',
  'derived_name',
  'description',
  'pinned',
  'type',
  'created_at',
  'created_by',
  'last_modified_at',
  'last_modified_by',
] as const;

export type PlaylistOrderColumn = (typeof PLAYLIST_ORDER_COLUMNS)[number];

export interface PlaylistListFilter {
  createdBy?: number;
  shortId?: string;
  type?: PlaylistType;
  pinned?: boolean;
  search?: string;
  modifiedAfter?: string;
  modifiedBefore?: string;
  sessionId?: string;
  order: { column: PlaylistOrderColumn; desc: boolean };
}

/** A project's playlists that are not deleted, filtered, with the total before paging. */
export async function listPlaylists(
  db: MetaDb,
  teamId: number,
  f: PlaylistListFilter,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: PlaylistRecord[] }> {
  let q = db
    .selectFrom('session_recording_playlists as p')
    .where('p.team_id', '=', teamId)
    .where('p.deleted', '=', false);
  if (f.createdBy !== undefined) q = q.where('p.created_by', '=', f.createdBy);
  if (f.shortId !== undefined) q = q.where('p.short_id', '=', f.shortId);
  if (f.type !== undefined) q = q.where('p.type', '=', f.type);
  if (f.pinned) q = q.where('p.pinned', '=', true);
  if (f.modifiedAfter !== undefined) q = q.where('p.last_modified_at', '>', f.modifiedAfter);
  if (f.modifiedBefore !== undefined) q = q.where('p.last_modified_at', '<', f.modifiedBefore);
  const search = f.search;
  if (search) q = q.where((eb) => eb.or([ilike('p.name', search), ilike('p.derived_name', search)]));
  const sessionId = f.sessionId;
  if (sessionId !== undefined) {
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('session_recording_playlist_items as i')
          .select('i.playlist_id')
          .whereRef('i.playlist_id', '=', 'p.id')
          .where('i.session_id', '=', sessionId),
      ),
    );
  }
  const total = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const direction = f.order.desc ? 'desc' : 'asc';
  const rows = await q
    .selectAll('p')
    .orderBy(`p.${f.order.column}`, direction)
    .orderBy('p.id', direction)
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { count: Number(total.n), results: rows.map(toPlaylist) };
}
