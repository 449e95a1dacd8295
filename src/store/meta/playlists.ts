import { bool, iso, isoOrNull, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';

export type PlaylistType = 'collection' | 'filters';

/**
 * The background counter's last result for a filters playlist (PostHog keeps the like in Redis);
 * the matched session ids themselves are rows of `session_recording_playlist_matches`.
 */
export interface PlaylistCounts {
  count: number;
  has_more: boolean;
  /** The count before, for `increased`; null until counted twice. */
  previous_count: number | null;
  refreshed_at: string | null;
  errored_at: string | null;
  error_count: number;
}

export interface PlaylistRecord {
  id: number;
  shortId: string;
  teamId: number;
  name: string | null;
  derivedName: string | null;
  description: string;
  pinned: boolean;
  deleted: boolean;
  filters: Record<string, unknown>;
  type: PlaylistType | null;
  createdAt: string;
  createdBy: number | null;
  lastModifiedAt: string;
  lastModifiedBy: number | null;
  lastCountedAt: string | null;
  counts: PlaylistCounts | null;
}

export type NewPlaylist = Omit<PlaylistRecord, 'id' | 'lastCountedAt' | 'counts'>;

type Row = {
  id: number;
  short_id: string;
  team_id: number;
  name: string | null;
  derived_name: string | null;
  description: string;
  pinned: boolean | number;
  deleted: boolean | number;
  filters: unknown;
  type: string | null;
  created_at: Date | string;
  created_by: number | null;
  last_modified_at: Date | string;
  last_modified_by: number | null;
  last_counted_at: Date | string | null;
  counts: unknown;
};

export function toPlaylist(row: Row): PlaylistRecord {
  return {
    id: row.id,
    shortId: row.short_id,
    teamId: row.team_id,
    name: row.name,
    derivedName: row.derived_name,
    description: row.description,
    pinned: bool(row.pinned),
    deleted: bool(row.deleted),
    filters: json<Record<string, unknown>>(row.filters) ?? {},
    type: row.type === 'collection' || row.type === 'filters' ? row.type : null,
    createdAt: iso(row.created_at),
    createdBy: row.created_by,
    lastModifiedAt: iso(row.last_modified_at),
    lastModifiedBy: row.last_modified_by,
    lastCountedAt: isoOrNull(row.last_counted_at),
    counts: json<PlaylistCounts | null>(row.counts) ?? null,
  };
}

export async function insertPlaylist(db: MetaDb, p: NewPlaylist): Promise<PlaylistRecord> {
  const row = await db
    .insertInto('session_recording_playlists')
    .values({
      short_id: p.shortId,
      team_id: p.teamId,
      name: p.name,
      derived_name: p.derivedName,
      description: p.description,
      pinned: p.pinned,
      deleted: p.deleted,
      filters: toJson(p.filters),
      type: p.type,
      created_at: p.createdAt,
      created_by: p.createdBy,
      last_modified_at: p.lastModifiedAt,
      last_modified_by: p.lastModifiedBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toPlaylist(row);
}

export async function shortIdTaken(db: MetaDb, teamId: number, shortId: string): Promise<boolean> {
  const row = await db
    .selectFrom('session_recording_playlists')
    .select('id')
    .where('team_id', '=', teamId)
    .where('short_id', '=', shortId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Deleted playlists are found too: PATCH can restore them. */
export async function findPlaylist(
  db: MetaDb,
  teamId: number,
  shortId: string,
): Promise<PlaylistRecord | undefined> {
  const row = await db
    .selectFrom('session_recording_playlists')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('short_id', '=', shortId)
    .executeTakeFirst();
  return row && toPlaylist(row);
}
