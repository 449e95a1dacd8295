import type { EventsMigration } from '../migrate.js';

const TS = "DateTime64(6, 'UTC')";
/** Attributes of a session's first event that has a `$current_url` (argMin by timestamp). */
const ENTRY: Array<[string, string]> = [
  ['entry_url', '$current_url'],
  ['entry_pathname', '$pathname'],
  ['entry_referring_domain', '$referring_domain'],
  ['entry_utm_source', 'utm_source'],
  ['entry_utm_medium', 'utm_medium'],
  ['entry_utm_campaign', 'utm_campaign'],
  ['entry_utm_term', 'utm_term'],
  ['entry_utm_content', 'utm_content'],
];
/** Attributes of its last event with a `$current_url` (argMax). */
const EXIT: Array<[string, string]> = [
  ['exit_url', '$current_url'],
  ['exit_pathname', '$pathname'],
];
const COUNTS: Array<[string, string]> = [
  ['pageview_count', "event = '$pageview'"],
  ['autocapture_count', "event = '$autocapture'"],
  ['screen_count', "event = '$screen'"],
  ['event_count', '1'],
];
const prop = (key: string) => `JSONExtractString(properties, '${key}')`;
const url = prop('$current_url');

/**
 * `sessions`: one row per (team_id, session_id) after merges, fed by a materialized view on
 * `events` that pre-aggregates each insert block. Until the engine merges, a session can have
 * several rows (and sit in two monthly partitions if it crosses a month), so readers always
 * aggregate: `GROUP BY team_id, session_id` with `min`/`max`/`sum`/`any` on the simple columns,
 * `argMinMerge`/`argMaxMerge` on entry/exit, `groupUniqArrayArray` on urls. Entry/exit values are ''
 * when the session has no event with a URL. A pre-filter on `min_timestamp` must leave slack.
 * Retried events (same uuid) are counted again here: the view sees inserts, not merged rows.
 */
export const sessionsTable: EventsMigration = {
  name: '0003_sessions',
  statements: (store) => [
    `CREATE TABLE IF NOT EXISTS ${store.table('sessions')} (
  team_id Int64,
  session_id String,
  distinct_id SimpleAggregateFunction(any, String),
  min_timestamp SimpleAggregateFunction(min, ${TS}),
  max_timestamp SimpleAggregateFunction(max, ${TS}),
  max_inserted_at SimpleAggregateFunction(max, ${TS}),
  urls SimpleAggregateFunction(groupUniqArrayArray, Array(String)),
  ${ENTRY.map(([c]) => `${c} AggregateFunction(argMin, String, ${TS})`).join(',\n  ')},
  ${EXIT.map(([c]) => `${c} AggregateFunction(argMax, String, ${TS})`).join(',\n  ')},
  ${COUNTS.map(([c]) => `${c} SimpleAggregateFunction(sum, UInt64)`).join(',\n  ')}
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(min_timestamp)
ORDER BY (team_id, session_id)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${store.table('sessions_mv')} TO ${store.table('sessions')} AS
SELECT
  team_id,
  \`$session_id\` AS session_id,
  any(distinct_id) AS distinct_id,
  min(timestamp) AS min_timestamp,
  max(timestamp) AS max_timestamp,
  max(inserted_at) AS max_inserted_at,
  groupUniqArrayIf(${url}, ${url} != '') AS urls,
  ${ENTRY.map(([c, k]) => `argMinIfState(${prop(k)}, timestamp, ${url} != '') AS ${c}`).join(',\n  ')},
  ${EXIT.map(([c, k]) => `argMaxIfState(${prop(k)}, timestamp, ${url} != '') AS ${c}`).join(',\n  ')},
  ${COUNTS.map(([c, cond]) => `toUInt64(countIf(${cond})) AS ${c}`).join(',\n  ')}
FROM ${store.table('events')}
WHERE \`$session_id\` != ''
GROUP BY team_id, session_id`,
  ],
};
