import type { ColumnType } from 'kysely';

/** Row shapes of the batch export tables (migration 0005); see tables.ts for the conventions. */
type Bool = ColumnType<boolean | number, boolean | undefined, boolean>;
type Json = ColumnType<unknown, string, string>;
type NullableJson = ColumnType<unknown, string | null, string | null>;
type Timestamp = ColumnType<Date | string, string, string>;
type NullableTimestamp = ColumnType<Date | string | null, string | null, string | null>;
type BigCount = ColumnType<number | string, number | undefined, number>;

export interface BatchExportsTable {
  id: string;
  team_id: number;
  name: string;
  model: string;
  interval: string;
  timezone: string;
  paused: Bool;
  paused_reason: string | null;
  deleted: Bool;
  destination_type: string;
  destination_config: Json;
  destination_secrets: string | null;
  hogql_query: string | null;
  schema: NullableJson;
  filters: NullableJson;
  start_at: NullableTimestamp;
  end_at: NullableTimestamp;
  created_at: Timestamp;
  last_updated_at: Timestamp;
  last_paused_at: NullableTimestamp;
  next_window_start: Timestamp;
  consecutive_failures: ColumnType<number, number | undefined, number>;
  /** Migration 0007. */
  interval_offset: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface BatchExportBackfillsTable {
  id: string;
  team_id: number;
  batch_export_id: string;
  workflow_id: string;
  start_at: NullableTimestamp;
  end_at: NullableTimestamp;
  status: string;
  next_window_start: Timestamp;
  window_end: Timestamp;
  total_runs: number;
  created_at: Timestamp;
  finished_at: NullableTimestamp;
  last_updated_at: Timestamp;
  rerun: Bool;
}

export interface BatchExportRunsTable {
  id: string;
  team_id: number;
  batch_export_id: string;
  backfill_id: string | null;
  status: string;
  data_interval_start: NullableTimestamp;
  data_interval_end: Timestamp;
  records_completed: BigCount;
  records_total_count: ColumnType<number | string | null, number | null | undefined, number | null>;
  bytes_exported: BigCount;
  latest_error: string | null;
  cursor: string | null;
  attempt: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp;
  lease_owner: string | null;
  lease_expires_at: NullableTimestamp;
  created_at: Timestamp;
  finished_at: NullableTimestamp;
  last_updated_at: Timestamp;
}
