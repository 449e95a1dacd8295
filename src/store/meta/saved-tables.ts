import type { ColumnType, Generated } from 'kysely';

/** Row shapes of migration 0020 (insights, dashboards, tiles, annotations, sharing). */
type Bool = ColumnType<boolean | number, boolean | undefined, boolean>;
type Json = ColumnType<unknown, string, string>;
type NullableJson = ColumnType<unknown, string | null, string | null>;
type Timestamp = ColumnType<Date | string, string, string>;
type NullableTimestamp = ColumnType<Date | string | null, string | null | undefined, string | null>;

export interface InsightsTable {
  id: Generated<number>;
  team_id: number;
  short_id: string;
  name: string | null;
  derived_name: string | null;
  description: string;
  query: NullableJson;
  tags: Json;
  favorited: Bool;
  saved: Bool;
  deleted: Bool;
  created_at: Timestamp;
  created_by: number | null;
  updated_at: Timestamp;
  last_modified_at: Timestamp;
  last_modified_by: number | null;
}

export interface DashboardsTable {
  id: Generated<number>;
  team_id: number;
  name: string | null;
  description: string;
  pinned: Bool;
  tags: Json;
  filters: Json;
  variables: NullableJson;
  deleted: Bool;
  created_at: Timestamp;
  created_by: number | null;
  last_accessed_at: NullableTimestamp;
}

export interface DashboardTilesTable {
  id: Generated<number>;
  dashboard_id: number;
  insight_id: number | null;
  text_body: string | null;
  text_created_by: number | null;
  text_last_modified_at: NullableTimestamp;
  layouts: Json;
  color: string | null;
  deleted: Bool;
  created_at: Timestamp;
}

export interface AnnotationsTable {
  id: Generated<number>;
  team_id: number;
  organization_id: string;
  content: string | null;
  date_marker: NullableTimestamp;
  creation_type: string;
  scope: string;
  insight_id: number | null;
  dashboard_id: number | null;
  deleted: Bool;
  created_at: Timestamp;
  created_by: number | null;
  updated_at: Timestamp;
}

export interface SharingConfigurationsTable {
  id: Generated<number>;
  team_id: number;
  insight_id: number | null;
  dashboard_id: number | null;
  enabled: Bool;
  access_token: string;
  settings: NullableJson;
  created_at: Timestamp;
}

export interface SavedTables {
  insights: InsightsTable;
  dashboards: DashboardsTable;
  dashboard_tiles: DashboardTilesTable;
  annotations: AnnotationsTable;
  sharing_configurations: SharingConfigurationsTable;
}
