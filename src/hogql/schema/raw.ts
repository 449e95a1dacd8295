import { col, type TableDef } from './fields.js';

const groupColumns = Object.fromEntries(
  [0, 1, 2, 3, 4].map((i) => [`$group_${i}`, col(`$group_${i}`, 'string')]),
);

/** The events table as stored; `events.ts` adds its lazy joins. */
export const rawEventColumns = {
  uuid: col('uuid', 'uuid'),
  event: col('event', 'string'),
  properties: col('properties', 'json'),
  timestamp: col('timestamp', 'datetime'),
  team_id: col('team_id', 'integer', { hidden: true }),
  distinct_id: col('distinct_id', 'string'),
  elements_chain: col('elements_chain', 'string'),
  created_at: col('created_at', 'datetime'),
  $session_id: col('$session_id', 'string'),
  $window_id: col('$window_id', 'string'),
  ...groupColumns,
  inserted_at: col('inserted_at', 'datetime', { hidden: true }),
};

export const rawPersons: TableDef = {
  name: 'raw_persons',
  physical: 'person',
  fields: {
    id: col('id', 'uuid'),
    team_id: col('team_id', 'integer', { hidden: true }),
    properties: col('properties', 'json'),
    is_identified: col('is_identified', 'boolean'),
    created_at: col('created_at', 'datetime'),
    version: col('version', 'integer'),
    is_deleted: col('is_deleted', 'boolean'),
  },
};

export const rawPersonDistinctIds: TableDef = {
  name: 'raw_person_distinct_ids',
  physical: 'person_distinct_id2',
  fields: {
    distinct_id: col('distinct_id', 'string'),
    person_id: col('person_id', 'uuid'),
    team_id: col('team_id', 'integer', { hidden: true }),
    version: col('version', 'integer'),
    is_deleted: col('is_deleted', 'boolean'),
  },
};

export const rawGroups: TableDef = {
  name: 'raw_groups',
  physical: 'groups',
  fields: {
    index: col('group_type_index', 'integer'),
    key: col('group_key', 'string'),
    team_id: col('team_id', 'integer', { hidden: true }),
    properties: col('group_properties', 'json'),
    created_at: col('created_at', 'datetime'),
    updated_at: col('_timestamp', 'datetime'),
    version: col('version', 'integer'),
  },
};

const sessionStates = [
  'entry_url',
  'entry_pathname',
  'entry_referring_domain',
  'entry_utm_source',
  'entry_utm_medium',
  'entry_utm_campaign',
  'entry_utm_term',
  'entry_utm_content',
  'exit_url',
  'exit_pathname',
];

/** Pre-aggregated sessions as the materialized view writes them (aggregate states included). */
export const rawSessions: TableDef = {
  name: 'raw_sessions',
  physical: 'sessions',
  fields: {
    session_id: col('session_id', 'string'),
    team_id: col('team_id', 'integer', { hidden: true }),
    distinct_id: col('distinct_id', 'string'),
    min_timestamp: col('min_timestamp', 'datetime'),
    max_timestamp: col('max_timestamp', 'datetime'),
    max_inserted_at: col('max_inserted_at', 'datetime'),
    urls: col('urls', 'array'),
    ...Object.fromEntries(sessionStates.map((c) => [c, col(c, 'unknown', { hidden: true })])),
    pageview_count: col('pageview_count', 'integer'),
    autocapture_count: col('autocapture_count', 'integer'),
    screen_count: col('screen_count', 'integer'),
    event_count: col('event_count', 'integer'),
  },
};

const replaySums = [
  'click_count',
  'keypress_count',
  'mouse_activity_count',
  'active_milliseconds',
  'console_log_count',
  'console_warn_count',
  'console_error_count',
  'size',
  'event_count',
  'message_count',
];

export const REPLAY_SUMS: readonly string[] = replaySums;

export const rawSessionReplayEvents: TableDef = {
  name: 'raw_session_replay_events',
  physical: 'session_replay_events',
  fields: {
    session_id: col('session_id', 'string'),
    team_id: col('team_id', 'integer', { hidden: true }),
    distinct_id: col('distinct_id', 'string'),
    min_first_timestamp: col('min_first_timestamp', 'datetime'),
    max_last_timestamp: col('max_last_timestamp', 'datetime'),
    first_url: col('first_url', 'unknown', { hidden: true }),
    all_urls: col('all_urls', 'array'),
    ...Object.fromEntries(replaySums.map((c) => [c, col(c, 'integer')])),
    snapshot_source: col('snapshot_source', 'string'),
  },
};
