import {
  listPlaylists,
  PLAYLIST_ORDER_COLUMNS,
  type PlaylistListFilter,
  type PlaylistOrderColumn,
} from '../../store/meta/playlist-list.js';
import type { PlaylistRecord } from '../../store/meta/playlists.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import type { Principal } from '../principal.js';
import { checkDateFilter, resolveDateFilter } from '../time/date-filter.js';
import { choice } from './check.js';

export interface PlaylistListQuery {
  created_by?: number;
  user?: string;
  short_id?: string;
  type?: string;
  pinned?: string;
  search?: string;
  date_from?: string;
  date_to?: string;
  session_recording_id?: string;
  order?: string;
}

/** PostHog's list filters; `type` other than the two kinds and an empty `search` filter nothing. */
export async function listProjectPlaylists(
  deps: Deps,
  access: ProjectAccess,
  principal: Principal,
  q: PlaylistListQuery,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: PlaylistRecord[] }> {
  const ctx = { timezone: access.team.timezone, now: deps.now() };
  const date = (k: 'date_from' | 'date_to') => {
    const v = q[k];
    if (v === undefined || v === '') return undefined;
    return resolveDateFilter(checkDateFilter(v, k), ctx, k === 'date_to')?.toISOString();
  };
  const orderText = q.order || '-last_modified_at';
  const desc = orderText.startsWith('-');
  const column = choice(desc ? orderText.slice(1) : orderText, PLAYLIST_ORDER_COLUMNS, 'order');
  const filter: PlaylistListFilter = { order: { column: column as PlaylistOrderColumn, desc } };
  if (q.created_by !== undefined) filter.createdBy = q.created_by;
  if (q.user !== undefined) filter.createdBy = principal.user.id;
  if (q.short_id !== undefined) filter.shortId = q.short_id;
  if (q.type === 'collection' || q.type === 'filters') filter.type = q.type;
  if (q.pinned !== undefined) filter.pinned = true;
  if (q.search) filter.search = q.search;
  const after = date('date_from');
  const before = date('date_to');
  if (after) filter.modifiedAfter = after;
  if (before) filter.modifiedBefore = before;
  if (q.session_recording_id !== undefined) filter.sessionId = q.session_recording_id;
  return listPlaylists(deps.meta, access.team.id, filter, page);
}
