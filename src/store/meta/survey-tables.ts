import type { ColumnType } from 'kysely';

type Bool = ColumnType<boolean | number, boolean | undefined, boolean>;
type Json = ColumnType<unknown, string, string>;
type NullableJson = ColumnType<unknown, string | null, string | null>;
type Timestamp = ColumnType<Date | string, string, string>;
type NullableTimestamp = ColumnType<Date | string | null, string | null, string | null>;

/** Row shape of `surveys` (migration 0040); codec.ts normalises what the two engines return. */
export interface SurveysTable {
  id: string;
  team_id: number;
  name: string;
  description: string;
  type: string;
  questions: Json;
  conditions: NullableJson;
  appearance: NullableJson;
  /** The rest of PostHog's survey fields, kept whole (responses_limit, iteration_count, schedule, ...). */
  settings: Json;
  linked_flag_id: number | null;
  targeting_flag_id: number | null;
  internal_targeting_flag_id: number | null;
  start_date: NullableTimestamp;
  end_date: NullableTimestamp;
  archived: Bool;
  created_at: Timestamp;
  created_by: number | null;
  updated_at: Timestamp;
}

/** Row shape of `early_access_features` (migration 0040). */
export interface EarlyAccessFeaturesTable {
  id: string;
  team_id: number;
  feature_flag_id: number | null;
  name: string;
  description: string;
  stage: string;
  documentation_url: string;
  payload: Json;
  created_at: Timestamp;
}
