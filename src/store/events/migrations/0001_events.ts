import { MATERIALIZED_EVENT_PROPERTIES, materializedColumnName, propertyExpression } from '../columns.js';
import type { EventsMigration } from '../migrate.js';

/**
 * The events table.
 *
 * Retries: an SDK that resends a batch sends the same `uuid`. The table is a ReplacingMergeTree
 * whose sort key ends in (cityHash64(distinct_id), cityHash64(uuid)), so a resent event with the
 * same team, day, event name, distinct id and uuid is one row after a merge (the one inserted last,
 * by `inserted_at`). Merges happen whenever the engine likes, so **queries that count must read
 * `events FINAL`** (the HogQL compiler adds it, with `do_not_merge_across_partitions_select_final = 1`:
 * the month partition is a function of `timestamp`, which the sort key contains, so duplicates never
 * sit in two partitions). Measured on chDB, 10M rows in ~12 unmerged parts: count 65 ms -> 1.3 s with
 * FINAL, property breakdown 0.2 -> 1.6 s; once a partition is merged to one part FINAL is free
 * (docs/benchmarks-history.md "Events store: property storage"), so keeping partitions merged keeps it cheap.
 * Insert-level dedup tokens would only catch a byte-identical batch, so they are not relied upon.
 * A retried event whose timestamp or event name changed is not collapsed (same as PostHog).
 *
 * Hot properties have `mat_<key>` columns (see ../columns.ts for how HogQL reads them).
 */
const groups = [0, 1, 2, 3, 4].map((i) => `\`$group_${i}\` String`).join(',\n  ');
const materialized = MATERIALIZED_EVENT_PROPERTIES.map(
  (key) =>
    `\`${materializedColumnName(key)}\` Nullable(String) MATERIALIZED ${propertyExpression('properties', key)}`,
).join(',\n  ');

export const eventsTable: EventsMigration = {
  name: '0001_events',
  statements: (store) => [
    `CREATE TABLE IF NOT EXISTS ${store.table('events')} (
  uuid UUID,
  event String,
  properties String,
  timestamp DateTime64(6, 'UTC'),
  team_id Int64,
  distinct_id String,
  elements_chain String,
  created_at DateTime64(6, 'UTC') DEFAULT now64(6),
  \`$session_id\` String,
  \`$window_id\` String,
  person_id UUID,
  person_properties String,
  person_created_at DateTime64(3, 'UTC'),
  ${groups},
  inserted_at DateTime64(6, 'UTC') DEFAULT now64(6),
  ${materialized}
)
ENGINE = ReplacingMergeTree(inserted_at)
PARTITION BY toYYYYMM(timestamp)
ORDER BY (team_id, toDate(timestamp), event, cityHash64(distinct_id), cityHash64(uuid))
SAMPLE BY cityHash64(distinct_id)`,
  ],
};
