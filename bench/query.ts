/**
 * The /query API against the raw engine: an 8-query suite on generated events, each run through
 * `POST /query` with `force_blocking` and, in the same run, the same compiled SQL sent straight to
 * the engine. Prints medians and ratios. Run: npm run bench:query -- --rows 10000000 [--dir d]
 */

import { compileSelect } from '../src/hogql/compile.js';
import { benchArgs, openDataset } from './dataset.js';
import { interleaved, postQuery } from './lib.js';

const { rows: ROWS, runs: RUNS, dir } = benchArgs(7);
const { team, key, events, url, close } = await openDataset({ rows: ROWS, dir });

const SUITE: Array<[string, string]> = [
  ['counts by day', 'SELECT toStartOfDay(timestamp) AS day, count() FROM events GROUP BY day ORDER BY day'],
  [
    'unique users by event',
    'SELECT event, uniq(distinct_id) AS users FROM events GROUP BY event ORDER BY users DESC LIMIT 50',
  ],
  [
    'property breakdown',
    "SELECT properties.$browser AS browser, count() AS c FROM events WHERE event = '$pageview' GROUP BY browser ORDER BY c DESC LIMIT 20",
  ],
  ['person-property filter (lazy join)', "SELECT count() FROM events WHERE person.properties.plan = 'pro'"],
  ['session duration percentiles', 'SELECT quantiles(0.5, 0.9, 0.99)($session_duration) FROM sessions'],
  [
    'funnel (windowFunnel)',
    "SELECT level, count() FROM (SELECT distinct_id, windowFunnel(86400)(toDateTime(timestamp), event = '$pageview', event = 'signup', event = 'purchase') AS level FROM events GROUP BY distinct_id) GROUP BY level ORDER BY level",
  ],
  [
    'top paths',
    "SELECT properties.$pathname AS path, count() AS c FROM events WHERE event = '$pageview' GROUP BY path ORDER BY c DESC LIMIT 10",
  ],
  [
    'raw event page',
    'SELECT uuid, event, timestamp, properties.$browser FROM events ORDER BY timestamp DESC LIMIT 100',
  ],
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

console.log(`${ROWS} events; ${RUNS} runs each; medians in ms`);
const ratios: number[] = [];
for (const [name, hogql] of SUITE) {
  const compiled = compileSelect(hogql, {
    teamId: team,
    timezone: 'UTC',
    weekStartDay: 0,
    table: (t) => events.table(t),
  });
  const {
    a: apiMs,
    b: rawMs,
    ratio,
  } = await interleaved(
    RUNS,
    () => postQuery(url, team, key, { kind: 'HogQLQuery', query: hogql }),
    () => events.queryRows(compiled.sql, { params: compiled.params }),
  );
  ratios.push(ratio);
  console.log(
    `${name.padEnd(36)} api ${apiMs.toFixed(1).padStart(8)}  engine ${rawMs.toFixed(1).padStart(8)}  ratio ${ratio.toFixed(2)}`,
  );
}
console.log(`median ratio ${median(ratios).toFixed(2)} (target ≤ 1.10 per query)`);
await close();
