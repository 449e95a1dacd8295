/**
 * Funnels, retention and paths through `POST /query` against hand-written ClickHouse SQL for the
 * same counts, in the same run, on the generated events of bench/query.ts. Prints medians and
 * ratios. Run: npx tsx bench/insights-funnels.ts --rows 10000000 [--dir d] [--runs 5]
 * The funnel baseline is `windowFunnel`, which gives step counts only (no conversion times), so
 * it is a lower bound for what the API computes.
 */

import { benchArgs, openDataset } from './dataset.js';
import { interleaved, median, postQuery, reporter } from './lib.js';

const { rows: ROWS, runs: RUNS, dir } = benchArgs(5);
const { team, key, events, url, close } = await openDataset({
  rows: ROWS,
  dir,
  now: () => new Date('2025-06-30T00:00:00Z'),
});

// 30 days of the generated data (which ends 2025-06-30), UTC.
const RANGE = { date_from: '2025-05-31', date_to: '2025-06-29' };
const E = events.table('events');
const PDI = `(SELECT distinct_id, argMax(person_id, version) AS person_id FROM ${events.table('person_distinct_id2')} WHERE team_id = ${team} GROUP BY distinct_id HAVING argMax(is_deleted, version) = 0)`;
const PERSON = `if(pdi.person_id = toUUID('00000000-0000-0000-0000-000000000000'), e.person_id, pdi.person_id)`;
const rows = (where: string, extra = '') =>
  `(SELECT ${PERSON} AS pid, e.timestamp AS timestamp, e.event AS event${extra} FROM ${E} AS e LEFT JOIN ${PDI} AS pdi ON pdi.distinct_id = e.distinct_id WHERE e.team_id = ${team} AND ${where})`;
const MONTH = `e.timestamp >= toDateTime64('2025-05-31 00:00:00', 6, 'UTC') AND e.timestamp < toDateTime64('2025-06-30 00:00:00', 6, 'UTC')`;
const STEPS = ['$pageview', '$autocapture', 'signup', 'purchase'];
const WEEKS = `e.timestamp >= toDateTime64('2025-05-04 00:00:00', 6, 'UTC') AND e.timestamp < toDateTime64('2025-06-29 00:00:00', 6, 'UTC')`;
const URL = `, JSONExtractString(e.properties, '$current_url') AS url`;

const SUITE: Array<[string, Record<string, unknown>, string]> = [
  [
    'funnel 4 steps, 14-day window, 30 days',
    {
      kind: 'FunnelsQuery',
      dateRange: RANGE,
      series: STEPS.map((event) => ({ kind: 'EventsNode', event })),
      funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' },
    },
    `SELECT countIf(s >= 1), countIf(s >= 2), countIf(s >= 3), countIf(s >= 4) FROM (SELECT pid, windowFunnel(${14 * 86400})(toDateTime(timestamp), ${STEPS.map((s) => `event = '${s}'`).join(', ')}) AS s FROM ${rows(`${MONTH} AND e.event IN (${STEPS.map((s) => `'${s}'`).join(', ')})`)} GROUP BY pid) WHERE s > 0`,
  ],
  [
    'retention 8 weeks, recurring',
    {
      kind: 'RetentionQuery',
      dateRange: { date_to: '2025-06-28' },
      retentionFilter: { period: 'Week', totalIntervals: 8 },
    },
    `SELECT c, o, count() FROM (SELECT c, arrayJoin(arrayPushFront(arrayMap(r -> r - c, arrayFilter(r -> r > c, w)), 0)) AS o FROM (SELECT pid, groupUniqArray(intDiv(toRelativeDayNum(timestamp) - toRelativeDayNum(toDate('2025-05-04')), 7)) AS w FROM ${rows(`${WEEKS} AND e.event = '$pageview'`)} GROUP BY pid) ARRAY JOIN w AS c) GROUP BY c, o`,
  ],
  [
    'paths of pageviews, 30 days',
    { kind: 'PathsQuery', dateRange: RANGE, pathsFilter: { includeEventTypes: ['$pageview'] } },
    `SELECT concat(toString(i), '_', p[i]) AS s, concat(toString(i + 1), '_', p[i + 1]) AS t, count() AS v FROM (SELECT arraySlice(arrayCompact(arrayMap(x -> x.2, sess)), 1, 5) AS p FROM (SELECT arrayJoin(arraySplit((x, g) -> g, evs, arrayMap((x, i) -> i > 1 AND x.1 - evs[i - 1].1 > 1800000, evs, arrayEnumerate(evs)))) AS sess FROM (SELECT pid, arraySort(x -> x.1, groupArray((toUnixTimestamp64Milli(timestamp), url))) AS evs FROM ${rows(`${MONTH} AND e.event = '$pageview'`, URL)} GROUP BY pid))) ARRAY JOIN range(1, length(p)) AS i GROUP BY s, t ORDER BY v DESC, s, t LIMIT 50`,
  ],
];

const report = reporter('insights-funnels');
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
    `${name.padEnd(40)} api ${apiMs.toFixed(1).padStart(8)}  hand SQL ${rawMs.toFixed(1).padStart(8)}  ratio ${ratio.toFixed(2)}`,
  );
}
console.log('target: ratio ≤ 1.5 per query');

// Paths against the funnel through the API, in turn per round: wall and the process's CPU time
// (server and engine share this process), medians.
const pair = [SUITE[0], SUITE[2]] as const;
const wall: number[][] = [[], []];
const cpu: number[][] = [[], []];
for (let r = 0; r <= RUNS; r++) {
  for (const [i, entry] of pair.entries()) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    await postQuery(url, team, key, (entry as (typeof SUITE)[number])[1]);
    const used = process.cpuUsage(c0);
    if (r > 0) {
      wall[i]?.push(performance.now() - t0);
      cpu[i]?.push((used.user + used.system) / 1000);
    }
  }
}
const [fw, pw] = wall.map(median) as [number, number];
const [fc, pc] = cpu.map(median) as [number, number];
console.log(
  `funnel: wall ${fw.toFixed(0)} ms, CPU ${fc.toFixed(0)} ms; paths: wall ${pw.toFixed(0)} ms, CPU ${pc.toFixed(0)} ms`,
);
console.log(`paths / funnel: wall ${(pw / fw).toFixed(2)}, CPU ${(pc / fc).toFixed(2)} (target ≤ 1.5)`);
report({
  case: `paths of pageviews against the 4-step funnel, ${ROWS} events`,
  metric: 'wall median',
  value: pw,
  unit: 'ms',
  ratio: pw / fw,
  against: 'the funnel, same run',
  goal: { op: '<=', value: 1.5, issue: 22, on: 'ratio' },
});
report({
  case: `paths of pageviews against the 4-step funnel, ${ROWS} events`,
  metric: 'CPU median',
  value: pc,
  unit: 'ms',
  ratio: pc / fc,
  against: 'the funnel, same run',
  goal: { op: '<=', value: 1.5, issue: 22, on: 'ratio' },
});
await close();
