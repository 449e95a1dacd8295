/**
 * Trends, stickiness and lifecycle through `POST /query` against the best hand-written ClickHouse
 * SQL for the same answer, in the same run, on the generated events of bench/query.ts. Prints
 * medians and ratios. Run: npx tsx bench/insights-trends.ts --rows 10000000 [--dir d] [--runs 5]
 */

import { benchArgs, openDataset } from './dataset.js';
import { interleaved, postQuery, reporter } from './lib.js';

const { rows: ROWS, runs: RUNS, dir } = benchArgs(5);
const { team, key, events, url, close } = await openDataset({ rows: ROWS, dir });

// 30 days of the generated data (which ends 2025-06-30), UTC.
const RANGE = { date_from: '2025-05-31', date_to: '2025-06-29' };
const E = events.table('events');
const TIME = `team_id = ${team} AND event = '$pageview' AND timestamp >= toDateTime64('2025-05-31 00:00:00', 6, 'UTC') AND timestamp < toDateTime64('2025-06-30 00:00:00', 6, 'UTC')`;
const PDI = `(SELECT distinct_id, argMax(person_id, version) AS person_id FROM ${events.table('person_distinct_id2')} WHERE team_id = ${team} GROUP BY distinct_id HAVING argMax(is_deleted, version) = 0)`;
const PERSON = `if(pdi.person_id = toUUID('00000000-0000-0000-0000-000000000000'), e.person_id, pdi.person_id)`;
const VIEWS = `(SELECT ${PERSON} AS pid, e.timestamp AS timestamp FROM ${E} AS e LEFT JOIN ${PDI} AS pdi ON pdi.distinct_id = e.distinct_id WHERE ${TIME.replaceAll('team_id', 'e.team_id').replaceAll(' event', ' e.event').replaceAll('timestamp', 'e.timestamp')})`;
const BROWSER = `JSONExtractString(properties, '$browser')`;
const series = [{ kind: 'EventsNode', event: '$pageview' }];

const SUITE: Array<[string, Record<string, unknown>, string]> = [
  [
    'trends, $browser breakdown, 30 days',
    { kind: 'TrendsQuery', dateRange: RANGE, series, breakdownFilter: { breakdown: '$browser' } },
    `SELECT toStartOfDay(timestamp) AS day, if(b IN (SELECT ${BROWSER} AS b FROM ${E} WHERE ${TIME} GROUP BY b ORDER BY count() DESC, b LIMIT 25), b, 'other') AS bv, count() FROM (SELECT timestamp, ${BROWSER} AS b FROM ${E} WHERE ${TIME}) GROUP BY day, bv`,
  ],
  [
    'trends dau, 30 days',
    { kind: 'TrendsQuery', dateRange: RANGE, series: [{ ...series[0], math: 'dau' }] },
    `SELECT toStartOfDay(timestamp) AS day, uniqExact(pid) FROM ${VIEWS} GROUP BY day`,
  ],
  [
    'trends weekly active, 30 days',
    { kind: 'TrendsQuery', dateRange: RANGE, series: [{ ...series[0], math: 'weekly_active' }] },
    `SELECT addDays(d, arrayJoin(range(0, 7))) AS day, uniqExact(pid) FROM (SELECT pid, toStartOfDay(timestamp) AS d FROM ${VIEWS} GROUP BY pid, d) GROUP BY day`,
  ],
  [
    'stickiness, 30 days',
    { kind: 'StickinessQuery', dateRange: RANGE, series },
    `SELECT n, count() FROM (SELECT pid, uniqExact(toStartOfDay(timestamp)) AS n FROM ${VIEWS} GROUP BY pid) GROUP BY n`,
  ],
  [
    'lifecycle, 30 days',
    { kind: 'LifecycleQuery', dateRange: RANGE, series },
    `SELECT tupleElement(pair, 1) AS day, tupleElement(pair, 2) AS status, count() FROM (SELECT arrayJoin(arrayConcat(arrayMap(b -> (b, multiIf(b = created, 'new', has(active, addDays(b, -1)), 'returning', 'resurrecting')), active), arrayMap(b -> (addDays(b, 1), 'dormant'), arrayFilter(b -> NOT has(active, addDays(b, 1)), active)))) AS pair FROM (SELECT v.pid AS pid, toStartOfDay(min(p.created_at)) AS created, groupUniqArray(toStartOfDay(v.timestamp)) AS active FROM ${VIEWS} AS v LEFT JOIN (SELECT id, argMax(created_at, version) AS created_at FROM ${events.table('person')} WHERE team_id = ${team} GROUP BY id) AS p ON p.id = v.pid GROUP BY pid)) GROUP BY day, status`,
  ],
];

const report = reporter('insights-trends');
console.log(`${ROWS} events; ${RUNS} runs each; medians in ms`);
for (const [name, node, sql] of SUITE) {
  const {
    a: apiMs,
    b: rawMs,
    ratio,
  } = await interleaved(
    RUNS,
    () => postQuery(url, team, key, node),
    () => events.queryRows(sql),
  );
  report({
    case: `${name}, ${ROWS} events`,
    metric: 'POST /query median',
    value: apiMs,
    unit: 'ms',
    ratio,
    against: 'hand-written SQL for the same answer',
    goal: { op: '<=', value: 1.5, issue: 10, on: 'ratio' },
  });
  console.log(
    `${name.padEnd(38)} api ${apiMs.toFixed(1).padStart(8)}  hand SQL ${rawMs.toFixed(1).padStart(8)}  ratio ${ratio.toFixed(2)}`,
  );
}
console.log('target: ratio ≤ 1.5 per query');
await close();
