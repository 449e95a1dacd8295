import { randomInt } from 'node:crypto';
import { notFound, validationError } from '../../errors.js';
import { type PlaylistPatch, updatePlaylist } from '../../store/meta/playlist-update.js';
import {
  findPlaylist,
  insertPlaylist,
  type PlaylistRecord,
  shortIdTaken,
} from '../../store/meta/playlists.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import type { Principal } from '../principal.js';
import { resolveFilterActions } from './filter-actions.js';
import { resolveFilterCohorts } from './filter-cohorts.js';
import { parseRecordingFilters } from './filters.js';

export interface PlaylistInput {
  name?: string | null;
  derived_name?: string | null;
  description?: string;
  pinned?: boolean;
  deleted?: boolean;
  filters?: Record<string, unknown> | null;
  /** Read-only in PostHog's serializer, so only the create reads it from the raw body. */
  type?: unknown;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const newShortId = () => Array.from({ length: 8 }, () => ALPHANUMERIC[randomInt(62)]).join('');

const isEmpty = (filters: Record<string, unknown> | null | undefined) =>
  !filters || Object.keys(filters).length === 0;

/**
 * Validated filters as stored; a filters playlist must keep at least one filter Burrow knows. The
 * actions and cohorts they name must be this project's now (a later deletion does not break the
 * playlist, see filter-actions.ts).
 */
async function savedFilters(
  deps: Deps,
  teamId: number,
  filters: Record<string, unknown> | null | undefined,
  emptyMessage: string,
) {
  if (isEmpty(filters)) throw validationError(emptyMessage);
  const { stored, query } = parseRecordingFilters(filters, 'filters');
  if (Object.keys(stored).length === 0) throw validationError(emptyMessage);
  await resolveFilterActions(deps, teamId, query.where);
  await resolveFilterCohorts(deps, teamId, query.where);
  return stored;
}

const text = (v: string | null | undefined) => (typeof v === 'string' ? v.trim() : v);

export async function createPlaylist(
  deps: Deps,
  access: ProjectAccess,
  principal: Principal,
  input: PlaylistInput,
): Promise<PlaylistRecord> {
  const type = input.type;
  if (type !== 'collection' && type !== 'filters') {
    throw validationError('Must provide a valid playlist type: either filters or collection');
  }
  if (type === 'collection' && !isEmpty(input.filters)) {
    throw validationError('You cannot create a collection with filters');
  }
  const filters =
    type === 'filters'
      ? await savedFilters(
          deps,
          access.team.id,
          input.filters,
          'You must provide a valid filters when creating a saved filter',
        )
      : {};
  const at = deps.now().toISOString();
  for (let attempt = 0; ; attempt++) {
    const shortId = newShortId();
    if (attempt < 5 && (await shortIdTaken(deps.meta, access.team.id, shortId))) continue;
    return insertPlaylist(deps.meta, {
      shortId,
      teamId: access.team.id,
      name: text(input.name) ?? null,
      derivedName: text(input.derived_name) ?? null,
      description: input.description ?? '',
      pinned: input.pinned ?? false,
      deleted: input.deleted ?? false,
      filters,
      type,
      createdAt: at,
      createdBy: principal.user.id,
      lastModifiedAt: at,
      lastModifiedBy: principal.user.id,
    });
  }
}

/** A playlist that is not deleted (retrieve and the sub-resources). */
export async function getPlaylist(
  deps: Deps,
  access: ProjectAccess,
  shortId: string,
): Promise<PlaylistRecord> {
  const playlist = await findPlaylist(deps.meta, access.team.id, shortId);
  if (!playlist || playlist.deleted) throw notFound();
  return playlist;
}

/**
 * Partial update. Deleted playlists can be updated (that is how they are restored); `type` and
 * `short_id` never change. Any change stamps `last_modified_at`/`_by`; new filters are recounted.
 */
export async function updatePlaylistFields(
  deps: Deps,
  access: ProjectAccess,
  principal: Principal,
  shortId: string,
  input: PlaylistInput,
): Promise<{ playlist: PlaylistRecord; recount: boolean }> {
  const playlist = await findPlaylist(deps.meta, access.team.id, shortId);
  if (!playlist) throw notFound();
  const patch: PlaylistPatch = {
    name: text(input.name),
    derivedName: text(input.derived_name),
    description: input.description,
    pinned: input.pinned,
    deleted: input.deleted,
  };
  if (input.filters !== undefined) {
    if (playlist.type === 'collection') {
      if (!isEmpty(input.filters)) throw validationError('You cannot update a collection to add filters');
      patch.filters = {};
    } else if (playlist.type === 'filters') {
      patch.filters = await savedFilters(
        deps,
        access.team.id,
        input.filters,
        'You cannot remove all filters when updating a saved filter',
      );
    } else {
      patch.filters = isEmpty(input.filters) ? {} : parseRecordingFilters(input.filters, 'filters').stored;
    }
    patch.resetCounts = JSON.stringify(patch.filters) !== JSON.stringify(playlist.filters);
  }
  if (Object.values(patch).some((v) => v !== undefined)) {
    patch.lastModifiedAt = deps.now().toISOString();
    patch.lastModifiedBy = principal.user.id;
  }
  await updatePlaylist(deps.meta, playlist.id, patch);
  const updated = (await findPlaylist(deps.meta, access.team.id, shortId)) as PlaylistRecord;
  return { playlist: updated, recount: patch.resetCounts === true && updated.type === 'filters' };
}
