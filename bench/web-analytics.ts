/**
 * PostHog's web analytics kinds through `POST /query` against the best hand-written ClickHouse SQL
 * for the same answer, in the same run, on the generated events of bench/dataset.ts (sessions of
 * about ten events, a skewed mix of 206 paths, browsers and OSes). Each pair's answers are compared
 * before timing: a figure for a different answer would mean nothing. Issue 32's goal: ≤ 1.3×.
 * Run: npx tsx bench/web-analytics.ts --rows 10000000 [--dir d] [--runs 5]
 */
import { benchArgs, openDataset } from './dataset.js';
import { interleaved, postQuery, reporter } from './lib.js';

const { rows: ROWS, runs: RUNS, dir } = benchArgs(5);
const { team, key, events, url, close } = await openDataset({ rows: ROWS, dir });

// The last 30 days of the generated data (which ends 2025-06-30), UTC, no comparison.
const dateRange = { date_from: '2025-05-31', date_to: '2025-06-29' };
const FROM = "toDateTime64('2025-05-31 00:00:00', 6, 'UTC')";
const TO = "toDateTime64('2025-06-30 00:00:00', 6, 'UTC')";
const E = events.table('events');
const S = events.table('sessions');

/** Pageviews in the window, one row per session (and breakdown value). */
const views = (select: string, groupBy: string) => `
  SELECT \`$session_id\` AS session_id, ${select} any(person_id) AS person_id, count() AS views
  FROM ${E}
  WHERE team_id = ${team} AND event IN ('$pageview', '$screen') AND \`$session_id\` != ''
    AND timestamp >= ${FROM} AND timestamp < ${TO}
  GROUP BY session_id ${groupBy}`;
/** The sessions those pageviews belong to, started in the window, with PostHog's bounce rule. */
const SESSIONS = `
  SELECT session_id, min(min_timestamp) AS start,
    dateDiff('second', min(min_timestamp), max(max_timestamp)) AS duration,
    if(sum(pageview_count) = 0, NULL,
       NOT (sum(pageview_count) > 1 OR sum(autocapture_count) > 0 OR duration >= 10)) AS bounce,
    nullIf(argMinMerge(entry_pathname), '') AS entry_pathname,
    nullIf(argMaxMerge(exit_pathname), '') AS exit_pathname
  FROM ${S}
  WHERE team_id = ${team} AND session_id IN (
    SELECT \`$session_id\` FROM ${E}
    WHERE team_id = ${team} AND event IN ('$pageview', '$screen') AND timestamp >= ${FROM} AND timestamp < ${TO})
  GROUP BY session_id
  HAVING start >= ${FROM} AND start < ${TO}`;

const OVERVIEW_SQL = `
  SELECT uniq(v.person_id), sum(v.views), uniq(v.session_id), avg(s.duration), avg(s.bounce) * 100
  FROM (${views('', '')}) AS v INNER JOIN (${SESSIONS}) AS s ON s.session_id = v.session_id`;

/** A stats table by an event property (per session and value) or a session attribute. */
const byEvent = (expr: string) => `
  SELECT v.value AS value, uniq(v.person_id) AS visitors, sum(v.views) AS n
  FROM (${views(`${expr} AS value,`, ', value')}) AS v INNER JOIN (${SESSIONS}) AS s ON s.session_id = v.session_id
  WHERE v.value != ''
  GROUP BY value ORDER BY visitors DESC, n DESC, value ASC LIMIT 101`;
const bySession = (column: string) => `
  SELECT s.${column} AS value, uniq(v.person_id) AS visitors, sum(v.views) AS n
  FROM (${views('', '')}) AS v INNER JOIN (${SESSIONS}) AS s ON s.session_id = v.session_id
  WHERE s.${column} IS NOT NULL
  GROUP BY value ORDER BY visitors DESC, n DESC, value ASC LIMIT 101`;

const stats = (breakdownBy: string) => ({
  kind: 'WebStatsTableQuery',
  breakdownBy,
  dateRange,
  properties: [],
  limit: 100,
});
const SUITE: Array<[string, Record<string, unknown>, string]> = [
  ['WebOverviewQuery', { kind: 'WebOverviewQuery', dateRange, properties: [] }, OVERVIEW_SQL],
  ['WebStatsTableQuery Page', stats('Page'), byEvent("JSONExtractString(properties, '$pathname')")],
  ['WebStatsTableQuery InitialPage', stats('InitialPage'), bySession('entry_pathname')],
  ['WebStatsTableQuery ExitPage', stats('ExitPage'), bySession('exit_pathname')],
  ['WebStatsTableQuery Browser', stats('Browser'), byEvent("JSONExtractString(properties, '$browser')")],
  ['WebStatsTableQuery OS', stats('OS'), byEvent("JSONExtractString(properties, '$os')")],
];

/** The two answers' figures side by side: overview items, or a table's first ten rows. */
function agree(name: string, api: Record<string, unknown>, raw: unknown[][]): string | null {
  const close = (a: unknown, b: unknown) =>
    Math.abs(Number(a) - Number(b)) <= Math.max(1e-6, Math.abs(Number(b)) * 1e-3) || a === b;
  if (name === 'WebOverviewQuery') {
    const items = api.results as { key: string; value: number }[];
    const row = raw[0] ?? [];
    const want = ['visitors', 'views', 'sessions', 'session duration', 'bounce rate'];
    for (const [i, k] of want.entries()) {
      const got = items.find((it) => it.key === k)?.value;
      if (!close(got, row[i])) return `${k}: api ${got}, hand SQL ${row[i]}`;
    }
    return null;
  }
  const rows = api.results as unknown[][];
  for (let i = 0; i < Math.min(10, raw.length); i++) {
    const [value, visitors, n] = raw[i] ?? [];
    const got = rows[i] ?? [];
    const pair = (c: unknown) => (Array.isArray(c) ? c[0] : c);
    if (String(got[0]) !== String(value) || !close(pair(got[1]), visitors) || !close(pair(got[2]), n))
      return `row ${i}: api ${JSON.stringify(got)}, hand SQL ${JSON.stringify(raw[i])}`;
  }
  if (rows.length !== Math.min(100, raw.length)) return `rows: api ${rows.length}, hand SQL ${raw.length}`;
  return null;
}

const report = reporter('web-analytics');
console.log(`${ROWS} events; ${RUNS} runs each; medians in ms`);
for (const [name, node, sql] of SUITE) {
  const api = (await postQuery(url, team, key, node)) as Record<string, unknown>;
  const raw = (await events.queryRows(sql)).rows as unknown[][];
  const differs = agree(name, api, raw);
  if (differs) console.log(`${name}: answers differ (${differs}); the timing below compares different work`);
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
    case: `${name}, ${ROWS} events, 30 days`,
    metric: 'POST /query median',
    value: apiMs,
    unit: 'ms',
    ratio,
    against: 'hand-written SQL for the same answer',
    goal: { op: '<=', value: 1.3, issue: 32, on: 'ratio' },
  });
  console.log(
    `${name.padEnd(34)} api ${apiMs.toFixed(1).padStart(8)}  hand SQL ${rawMs.toFixed(1).padStart(8)}  ratio ${ratio.toFixed(2)}${differs ? '  (answers differ)' : ''}`,
  );
}
console.log('target: ratio ≤ 1.3 per query');
await close();
