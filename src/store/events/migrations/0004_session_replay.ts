import type { EventsMigration } from '../migrate.js';

const TS = "DateTime64(6, 'UTC')";
const SUMS = [
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

/**
 * Recordings. Ingestion writes one summary row per received snapshot batch into
 * `session_replay_events_ingest` (Null engine: stores nothing); a materialized view turns it into
 * aggregate states in `session_replay_events`, one row per (team_id, session_id) after merges.
 * Readers aggregate (`GROUP BY team_id, session_id`: min/max/sum/any, `argMinMerge(first_url)`).
 * The rrweb data itself goes to `session_replay_snapshots`, ordered for reading one session in
 * time order; it is a ReplacingMergeTree so that a resent batch (same window, timestamp and data)
 * collapses (read with FINAL, or tolerate duplicates until merges).
 */
export const sessionReplayTables: EventsMigration = {
  name: '0004_session_replay',
  statements: (store) => [
    `CREATE TABLE IF NOT EXISTS ${store.table('session_replay_events')} (
  team_id Int64,
  session_id String,
  distinct_id SimpleAggregateFunction(any, String),
  min_first_timestamp SimpleAggregateFunction(min, ${TS}),
  max_last_timestamp SimpleAggregateFunction(max, ${TS}),
  first_url AggregateFunction(argMin, String, ${TS}),
  all_urls SimpleAggregateFunction(groupUniqArrayArray, Array(String)),
  ${SUMS.map((c) => `${c} SimpleAggregateFunction(sum, Int64)`).join(',\n  ')},
  snapshot_source SimpleAggregateFunction(any, String),
  _timestamp SimpleAggregateFunction(max, ${TS})
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(min_first_timestamp)
ORDER BY (team_id, session_id)`,
    `CREATE TABLE IF NOT EXISTS ${store.table('session_replay_events_ingest')} (
  team_id Int64,
  session_id String,
  distinct_id String,
  first_timestamp ${TS},
  last_timestamp ${TS},
  first_url String,
  urls Array(String),
  ${SUMS.map((c) => `${c} Int64`).join(',\n  ')},
  snapshot_source String,
  inserted_at ${TS} DEFAULT now64(6)
)
ENGINE = Null`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${store.table('session_replay_events_mv')}
TO ${store.table('session_replay_events')} AS
SELECT
  team_id,
  session_id,
  any(distinct_id) AS distinct_id,
  min(first_timestamp) AS min_first_timestamp,
  max(last_timestamp) AS max_last_timestamp,
  argMinIfState(first_url, first_timestamp, first_url != '') AS first_url,
  groupUniqArrayArray(urls) AS all_urls,
  ${SUMS.map((c) => `sum(${c}) AS ${c}`).join(',\n  ')},
  any(snapshot_source) AS snapshot_source,
  max(inserted_at) AS _timestamp
FROM ${store.table('session_replay_events_ingest')}
GROUP BY team_id, session_id`,
    `CREATE TABLE IF NOT EXISTS ${store.table('session_replay_snapshots')} (
  team_id Int64,
  session_id String,
  window_id String,
  timestamp ${TS},
  source String,
  data String CODEC(ZSTD(3)),
  inserted_at ${TS} DEFAULT now64(6)
)
ENGINE = ReplacingMergeTree(inserted_at)
PARTITION BY toYYYYMM(timestamp)
ORDER BY (team_id, session_id, timestamp, window_id, cityHash64(data))`,
  ],
};
