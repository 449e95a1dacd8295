import type { EventsMigration } from '../migrate.js';

/**
 * The `sessions` view again (0003 describes the table and how to read it), with the same output
 * but one JSON parse per event instead of one per property: 0003's view called
 * `JSONExtractString(properties, key)` for each of nine keys, each a full parse of `properties`,
 * and halved the insert rate of `events` (docs/benchmarks-history.md, "Capture"). Here one
 * `JSONExtract(properties, 'Tuple(...)')` reads every key at once; its `String` elements follow
 * `JSONExtractString`'s rules (missing key or null → '', a number or object → its JSON text, the
 * first of duplicate keys), which a test checks against the old expression.
 *
 * Replacing a view is a drop and a create under the same name (the `sessions` rows stay); both are
 * idempotent, so a crash between them is repaired by the rerun. Migrations run before the server
 * takes events, so no insert falls between the two.
 */
const KEYS = [
  '$current_url',
  '$pathname',
  '$referring_domain',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
];
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
const TUPLE = `Tuple(${KEYS.map((k) => `\`${k}\` String`).join(', ')})`;
/** Element of the parsed tuple, by position (1-based). */
const prop = (key: string) => `tupleElement(p, ${KEYS.indexOf(key) + 1})`;
const url = prop('$current_url');

export const sessionsViewTuple: EventsMigration = {
  name: '0005_sessions_view_tuple',
  statements: (store) => [
    `DROP VIEW IF EXISTS ${store.table('sessions_mv')}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${store.table('sessions_mv')} TO ${store.table('sessions')} AS
WITH JSONExtract(properties, '${TUPLE}') AS p
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
