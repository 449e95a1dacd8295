import { toJson } from './codec.js';
import type { MetaDb } from './db.js';

export interface PlaylistPatch {
  name?: string | null;
  derivedName?: string | null;
  description?: string;
  pinned?: boolean;
  deleted?: boolean;
  filters?: Record<string, unknown>;
  lastModifiedAt?: string;
  lastModifiedBy?: number;
  /** New filters make the previous count meaningless: it is dropped and recounted first. */
  resetCounts?: boolean;
}

export async function updatePlaylist(db: MetaDb, id: number, patch: PlaylistPatch): Promise<void> {
  await db
    .updateTable('session_recording_playlists')
    .set({
      name: patch.name,
      derived_name: patch.derivedName,
      description: patch.description,
      pinned: patch.pinned,
      deleted: patch.deleted,
      filters: patch.filters === undefined ? undefined : toJson(patch.filters),
      last_modified_at: patch.lastModifiedAt,
      last_modified_by: patch.lastModifiedBy,
      ...(patch.resetCounts ? { counts: null, last_counted_at: null, count_errors: 0 } : {}),
    })
    .where('id', '=', id)
    .execute();
}
