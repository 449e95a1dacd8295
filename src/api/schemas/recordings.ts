import { Type } from 'typebox';
import type { PlaylistView } from '../../domain/recordings/playlist-view.js';
import type { Recording as RecordingRecord } from '../../domain/recordings/recordings.js';
import { DateTime, Nullable, NullableDateTime, ProjectIdParams, toUserBasic, UserBasic } from './common.js';

/** Burrow has one environment per project: both path families name the same project. */
export const PROJECT_PREFIXES = ['/api/environments/:project_id/', '/api/projects/:project_id/'];

export const ShortIdParams = Type.Object({
  ...ProjectIdParams.properties,
  short_id: Type.String({ maxLength: 12 }),
});
const AnyObject = Type.Record(Type.String(), Type.Unknown());

export const RecordingsCounts = Type.Object({
  saved_filters: Type.Object({
    count: Nullable(Type.Integer()),
    has_more: Nullable(Type.Boolean()),
    watched_count: Nullable(Type.Integer()),
    increased: Nullable(Type.Boolean()),
    last_refreshed_at: NullableDateTime,
  }),
  collection: Type.Object({ count: Nullable(Type.Integer()), watched_count: Nullable(Type.Integer()) }),
});

export const Playlist = Type.Object({
  id: Type.Integer(),
  short_id: Type.String(),
  name: Nullable(Type.String()),
  derived_name: Nullable(Type.String()),
  description: Type.String(),
  pinned: Type.Boolean(),
  created_at: DateTime,
  created_by: Nullable(UserBasic),
  deleted: Type.Boolean(),
  filters: AnyObject,
  last_modified_at: DateTime,
  last_modified_by: Nullable(UserBasic),
  recordings_counts: RecordingsCounts,
  type: Nullable(Type.String({ enum: ['collection', 'filters'] })),
});

const PlaylistFields = {
  name: Type.Optional(Nullable(Type.String({ maxLength: 400 }))),
  derived_name: Type.Optional(Nullable(Type.String({ maxLength: 400 }))),
  description: Type.Optional(Type.String({ maxLength: 100_000 })),
  pinned: Type.Optional(Type.Boolean()),
  deleted: Type.Optional(Type.Boolean()),
  filters: Type.Optional(Nullable(AnyObject, { description: 'Recording filters (validated)' })),
  _create_in_folder: Type.Optional(Type.String({ maxLength: 400, description: 'Accepted and ignored' })),
};
export const PlaylistCreateBody = Type.Object(
  { ...PlaylistFields, type: Type.Optional(Type.Unknown({ description: '`collection` or `filters`' })) },
  { additionalProperties: false },
);
export const PlaylistUpdateBody = Type.Object(PlaylistFields, { additionalProperties: false });

export function toPlaylist(p: PlaylistView) {
  return {
    id: p.id,
    short_id: p.shortId,
    name: p.name,
    derived_name: p.derivedName,
    description: p.description,
    pinned: p.pinned,
    created_at: p.createdAt,
    created_by: p.createdByUser && toUserBasic(p.createdByUser),
    deleted: p.deleted,
    filters: p.filters,
    last_modified_at: p.lastModifiedAt,
    last_modified_by: p.lastModifiedByUser && toUserBasic(p.lastModifiedByUser),
    recordings_counts: p.recordingsCounts,
    type: p.type,
  };
}

const RecordingPerson = Type.Object({
  id: Type.String(),
  uuid: Type.String(),
  name: Type.String(),
  distinct_ids: Type.Array(Type.String()),
  properties: AnyObject,
  created_at: DateTime,
});

export const Recording = Type.Object({
  id: Type.String(),
  distinct_id: Type.String(),
  viewed: Type.Boolean(),
  viewers: Type.Array(Type.String()),
  recording_duration: Type.Integer(),
  active_seconds: Type.Integer(),
  inactive_seconds: Type.Integer(),
  start_time: DateTime,
  end_time: DateTime,
  click_count: Type.Integer(),
  keypress_count: Type.Integer(),
  mouse_activity_count: Type.Integer(),
  console_log_count: Type.Integer(),
  console_warn_count: Type.Integer(),
  console_error_count: Type.Integer(),
  start_url: Nullable(Type.String()),
  person: Nullable(RecordingPerson),
  snapshot_source: Nullable(Type.String()),
  ongoing: Type.Boolean(),
  activity_score: Nullable(Type.Number()),
});

export const RecordingList = Type.Object({
  results: Type.Array(Recording),
  has_next: Type.Boolean(),
  version: Type.Integer(),
});

const iso = (chTime: string) => new Date(`${chTime.replace(' ', 'T')}Z`).toISOString();

function personName(person: NonNullable<RecordingRecord['person']>): string {
  const p = person.properties;
  for (const key of ['email', 'name', 'username'])
    if (typeof p[key] === 'string' && p[key]) return p[key] as string;
  return person.distinctIds[0] ?? person.id;
}

export function toRecording(r: RecordingRecord) {
  return {
    id: r.session_id,
    distinct_id: r.distinct_id,
    viewed: r.viewed,
    viewers: r.viewers,
    recording_duration: r.duration,
    active_seconds: r.active_seconds,
    inactive_seconds: r.inactive_seconds,
    start_time: iso(r.start_time),
    end_time: iso(r.end_time),
    click_count: r.click_count,
    keypress_count: r.keypress_count,
    mouse_activity_count: r.mouse_activity_count,
    console_log_count: r.console_log_count,
    console_warn_count: r.console_warn_count,
    console_error_count: r.console_error_count,
    start_url: r.start_url || null,
    person: r.person && {
      id: r.person.id,
      uuid: r.person.id,
      name: personName(r.person),
      distinct_ids: r.person.distinctIds,
      properties: r.person.properties,
      created_at: r.person.createdAt,
    },
    snapshot_source: r.snapshot_source || null,
    ongoing: r.ongoing,
    activity_score: null,
  };
}

/** PostHog's recordings list answers `{results, has_next, version}` rather than DRF paging. */
export const recordingList = (page: { results: RecordingRecord[]; hasNext: boolean }) => ({
  results: page.results.map(toRecording),
  has_next: page.hasNext,
  version: 4,
});
