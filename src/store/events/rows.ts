import type { LogRecordRow } from '../../capture/otlp-logs.js';

/**
 * Row shapes of the recording tables, as written with JSONEachRow (events, persons and groups are
 * encoded in src/domain/ingest/rows.ts). Field names are the column names. Timestamps are UTC
 * strings 'YYYY-MM-DD HH:MM:SS.ffffff' (see `formatTimestamp`), which both chDB and a ClickHouse
 * server parse into DateTime64 without best-effort parsing. Optional fields take the column
 * default when left out.
 */

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

/**
 * `logs`: one OpenTelemetry log record (`/i/v1/logs`), in the columns PostHog's HogQL `logs` table
 * has. `attributes` and `resource_attributes` are JSON objects as text.
 */
export interface LogRow extends LogRecordRow {
  team_id: number;
}
