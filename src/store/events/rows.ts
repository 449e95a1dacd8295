/**
 * Row shapes for the analytics tables, as written with JSONEachRow. Field names are the column
 * names. Timestamps are UTC strings 'YYYY-MM-DD HH:MM:SS.ffffff' (see `formatTimestamp`), which
 * both chDB and a ClickHouse server parse into DateTime64 without best-effort parsing. UUIDs are
 * canonical strings. Optional fields take the column default when left out ('' for strings, the
 * zero UUID, 1970-01-01 for `person_created_at`, now for `created_at` / `inserted_at`).
 */

/** `events`. `properties`, `person_properties` are JSON text. */
export interface EventRow {
  uuid: string;
  event: string;
  properties: string;
  timestamp: string;
  team_id: number;
  distinct_id: string;
  elements_chain?: string;
  created_at?: string;
  $session_id?: string;
  $window_id?: string;
  person_id?: string;
  person_properties?: string;
  person_created_at?: string;
  $group_0?: string;
  $group_1?: string;
  $group_2?: string;
  $group_3?: string;
  $group_4?: string;
  /** Version of a retried event: the latest insert wins when rows collapse. */
  inserted_at?: string;
}

/** `person`: every change is a new row with a higher `version`; deletion sets `is_deleted`. */
export interface PersonRow {
  id: string;
  team_id: number;
  properties: string;
  is_identified: 0 | 1;
  created_at: string;
  version: number;
  is_deleted?: 0 | 1;
}

/** `person_distinct_id2`: the latest `version` of a distinct id says which person it belongs to. */
export interface DistinctIdRow {
  team_id: number;
  distinct_id: string;
  person_id: string;
  version: number;
  is_deleted?: 0 | 1;
}

/** `groups`: latest `version` per (team, type index, key) wins. */
export interface GroupRow {
  team_id: number;
  group_type_index: number;
  group_key: string;
  group_properties: string;
  created_at: string;
  version: number;
}

/**
 * One received batch of a recording, summarised; aggregated into `session_replay_events`.
 * Counts default to 0.
 */
export interface ReplayEventRow {
  team_id: number;
  session_id: string;
  distinct_id: string;
  first_timestamp: string;
  last_timestamp: string;
  first_url?: string;
  urls?: string[];
  click_count?: number;
  keypress_count?: number;
  mouse_activity_count?: number;
  active_milliseconds?: number;
  console_log_count?: number;
  console_warn_count?: number;
  console_error_count?: number;
  /** Bytes of snapshot data received. */
  size?: number;
  event_count?: number;
  message_count?: number;
  snapshot_source?: string;
}

/** `session_replay_snapshots`: rrweb data, `data` as JSON text. */
export interface SnapshotRow {
  team_id: number;
  session_id: string;
  window_id: string;
  timestamp: string;
  source?: string;
  data: string;
}
