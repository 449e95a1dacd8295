import type { ColumnType, Generated } from 'kysely';

/** Row shapes of the feature flag tables (migrations 0012, 0013); see tables.ts for the conventions. */
type Bool = ColumnType<boolean | number, boolean | undefined, boolean>;
type Json = ColumnType<unknown, string, string>;
type Timestamp = ColumnType<Date | string, string, string>;

export interface FeatureFlagsTable {
  id: Generated<number>;
  team_id: number;
  key: string;
  name: string;
  filters: Json;
  active: Bool;
  deleted: Bool;
  ensure_experience_continuity: Bool;
  evaluation_runtime: string;
  tags: Json;
  version: number;
  created_at: Timestamp;
  created_by: number | null;
  updated_at: Timestamp;
  last_modified_by: number | null;
}

export interface FeatureFlagHashKeyOverridesTable {
  team_id: number;
  person_id: string;
  feature_flag_key: string;
  hash_key: string;
}

export interface ProjectSecretApiKeysTable {
  team_id: number;
  secure_value: string;
  mask_value: string;
  created_at: Timestamp;
  created_by: number | null;
}
