import type { ColumnType, Generated } from 'kysely';

/** Row shapes of the tables migrations 0015/0016 add (merged into MetaTables below). */
type Bool = ColumnType<boolean | number, boolean | undefined, boolean>;
type Json = ColumnType<unknown, string, string>;
type NullableJson = ColumnType<unknown, string | null, string | null>;
type Timestamp = ColumnType<Date | string, string, string>;
type NullableTimestamp = ColumnType<Date | string | null, string | null | undefined, string | null>;

export interface EventDefinitionsTable {
  id: string;
  team_id: number;
  name: string;
  description: string | null;
  tags: Json;
  verified: Bool;
  verified_at: NullableTimestamp;
  hidden: Bool;
  created_at: Timestamp;
  updated_at: NullableTimestamp;
  last_seen_at: NullableTimestamp;
}

export interface PropertyDefinitionsTable {
  id: string;
  team_id: number;
  name: string;
  type: number;
  group_type_index: number;
  property_type: string | null;
  is_numerical: Bool;
  description: string | null;
  tags: Json;
  verified: Bool;
  verified_at: NullableTimestamp;
  hidden: Bool;
  updated_at: NullableTimestamp;
}

export interface EventPropertiesTable {
  team_id: number;
  event: string;
  property: string;
}

export interface CohortsTable {
  id: Generated<number>;
  team_id: number;
  name: string | null;
  description: string;
  filters: NullableJson;
  groups: Json;
  is_static: Bool;
  deleted: Bool;
  count: number | null;
  version: number | null;
  pending_version: number | null;
  is_calculating: Bool;
  last_calculation: NullableTimestamp;
  errors_calculating: ColumnType<number, number | undefined, number>;
  last_error: string | null;
  last_error_at: NullableTimestamp;
  created_at: Timestamp;
  created_by: number | null;
}

declare module './tables.js' {
  interface MetaTables {
    event_definitions: EventDefinitionsTable;
    property_definitions: PropertyDefinitionsTable;
    event_properties: EventPropertiesTable;
    cohorts: CohortsTable;
  }
  interface GroupTypeMappingsTable {
    name_singular: ColumnType<string | null, string | null | undefined, string | null>;
    name_plural: ColumnType<string | null, string | null | undefined, string | null>;
  }
}
