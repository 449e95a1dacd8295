import type { EventsMigration } from '../migrate.js';

/**
 * Persons, distinct id → person mapping and groups. All three are ReplacingMergeTree(version):
 * every change is a new row with a higher version, and readers take the latest one per key
 * (`argMax(x, version)` grouped by the key, or FINAL), then drop it if `is_deleted` is 1.
 * A deletion is a row with a higher version and `is_deleted = 1`; a distinct id moved to another
 * person (merge, alias) is a row with a higher version and the new `person_id`.
 */
export const personsTables: EventsMigration = {
  name: '0002_persons',
  statements: (store) => [
    `CREATE TABLE IF NOT EXISTS ${store.table('person')} (
  id UUID,
  team_id Int64,
  properties String,
  is_identified UInt8,
  created_at DateTime64(3, 'UTC'),
  version Int64,
  is_deleted UInt8 DEFAULT 0,
  _timestamp DateTime64(6, 'UTC') DEFAULT now64(6)
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (team_id, id)`,
    `CREATE TABLE IF NOT EXISTS ${store.table('person_distinct_id2')} (
  team_id Int64,
  distinct_id String,
  person_id UUID,
  version Int64,
  is_deleted UInt8 DEFAULT 0,
  _timestamp DateTime64(6, 'UTC') DEFAULT now64(6)
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (team_id, distinct_id)`,
    `CREATE TABLE IF NOT EXISTS ${store.table('groups')} (
  team_id Int64,
  group_type_index UInt8,
  group_key String,
  group_properties String,
  created_at DateTime64(6, 'UTC'),
  version Int64,
  _timestamp DateTime64(6, 'UTC') DEFAULT now64(6)
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (team_id, group_type_index, group_key)`,
  ],
};
