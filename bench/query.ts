/**
 * The /query API against the raw engine: a query suite on generated events, each run through
 * `POST /query` with `force_blocking` and, in the same run, the same compiled SQL sent straight to
 * the engine. Prints medians and ratios, then person-property filters and breakdowns in each
 * persons-on-events mode beside the same on an event property, as engine-time ratios, the on-events
 * modes also with the person property's own column (`pmat_plan`, added and filled first).
 * Run: npm run bench:query -- --rows 10000000 [--dir d]  (BENCH_ONLY=persons: the second part only)
 */

import { loadavg } from 'node:os';
import { compileSelect } from '../src/hogql/compile.js';
import type { PersonsOnEventsMode } from '../src/hogql/schema/events.js';
import { materializePersonProperties, pendingMaterializations } from '../src/store/events/person-columns.js';
import { benchArgs, openDataset } from './dataset.js';
import { interleaved, median, postQuery, reporter } from './lib.js';

const report = reporter('query');

const { rows: ROWS, runs: RUNS, dir } = benchArgs(7);
const ONLY_PERSONS = process.env.BENCH_ONLY === 'persons';
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

/** Person properties beside the same on an event property, by persons-on-events mode. */
const JOINED: PersonsOnEventsMode = 'person_id_override_properties_joined';
const POE: PersonsOnEventsMode = 'person_id_override_properties_on_events';
const NO_OVERRIDE: PersonsOnEventsMode = 'person_id_no_override_properties_on_events';
const filter = (prop: string) => `SELECT count() FROM events WHERE ${prop} = 'pro'`;
const breakdown = (prop: string) =>
  `SELECT ${prop} AS value, count() AS c FROM events GROUP BY value ORDER BY c DESC LIMIT 20`;
/** Name, HogQL, mode, and whether the compiler may read person properties' `pmat_` columns. */
const PERSONS: Array<[string, string, PersonsOnEventsMode | undefined, boolean?]> = [
  ['event-property filter (JSON)', filter('properties.plan.tier'), undefined],
  [
    'event-property filter ($browser, column)',
    "SELECT count() FROM events WHERE properties.$browser = 'Chrome'",
    undefined,
  ],
  ['person filter, joined (default)', filter('person.properties.plan'), JOINED],
  ['person filter, override on events', filter('person.properties.plan'), POE],
  ['person filter, no override on events', filter('person.properties.plan'), NO_OVERRIDE],
  ['person filter, override on events, pmat_plan', filter('person.properties.plan'), POE, true],
  ['person filter, no override, pmat_plan', filter('person.properties.plan'), NO_OVERRIDE, true],
  ['event-property breakdown (JSON)', breakdown('properties.plan.tier'), undefined],
  ['event-property breakdown ($browser, column)', breakdown('properties.$browser'), undefined],
  ['person breakdown, joined (default)', breakdown('person.properties.plan'), JOINED],
  ['person breakdown, override on events', breakdown('person.properties.plan'), POE],
  ['person breakdown, no override on events', breakdown('person.properties.plan'), NO_OVERRIDE],
  ['person breakdown, override on events, pmat_plan', breakdown('person.properties.plan'), POE, true],
  ['person breakdown, no override, pmat_plan', breakdown('person.properties.plan'), NO_OVERRIDE, true],
];

const compileFor = (hogql: string, mode?: PersonsOnEventsMode, personColumns = false) =>
  compileSelect(hogql, {
    teamId: team,
    timezone: 'UTC',
    weekStartDay: 0,
    table: (t) => events.table(t),
    personsOnEventsMode: mode,
    ...(personColumns ? { personColumns: events.personColumns } : {}),
  });

// The person property's column, filled for every part before anything is timed (a fill still
// running would take CPU from the queries; the server's own, e.g. pmat_email, included).
{
  const t0 = performance.now();
  const [plan] = await materializePersonProperties(events, ['plan']);
  let pending = await pendingMaterializations(events);
  while (pending.length) {
    await new Promise((r) => setTimeout(r, 1000));
    pending = await pendingMaterializations(events);
  }
  if (plan?.added)
    console.log(`added and filled ${plan.column} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

console.log(`${ROWS} events; ${RUNS} runs each; medians in ms`);
const ratios: number[] = [];
for (const [name, hogql] of ONLY_PERSONS ? [] : SUITE) {
  const compiled = compileFor(hogql);
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
  report({
    case: `${name}, ${ROWS} events`,
    metric: 'POST /query median',
    value: apiMs,
    unit: 'ms',
    ratio,
    against: 'the same SQL on the engine',
    goal: { op: '<=', value: 1.1, issue: 6, on: 'ratio' },
  });
  console.log(
    `${name.padEnd(36)} api ${apiMs.toFixed(1).padStart(8)}  engine ${rawMs.toFixed(1).padStart(8)}  ratio ${ratio.toFixed(2)}`,
  );
}
if (ratios.length) console.log(`median ratio ${median(ratios).toFixed(2)} (target ≤ 1.10 per query)`);

// Engine only, every query of a round in turn (so load changes hit each alike), medians of wall
// time and of the process's CPU time (the engine runs in this process: CPU time is what a query
// costs whatever else shares the machine). Round 0 warms up.
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(`\nload average before: ${load()}`);
const wall = PERSONS.map(() => [] as number[]);
const cpu = PERSONS.map(() => [] as number[]);
const compiled = PERSONS.map(([, hogql, mode, columns]) => compileFor(hogql, mode, columns));
for (const [i, [name, , , columns]] of PERSONS.entries())
  if (columns && !compiled[i]?.sql.includes('pmat_plan')) throw new Error(`${name}: not reading pmat_plan`);
for (let r = 0; r <= RUNS; r++) {
  for (const [i, c] of compiled.entries()) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    await events.queryRows(c.sql, { params: c.params });
    const used = process.cpuUsage(c0);
    if (r > 0) {
      wall[i]?.push(performance.now() - t0);
      cpu[i]?.push((used.user + used.system) / 1000);
    }
  }
}
const w = wall.map(median);
const c = cpu.map(median);
const at = (name: string) => PERSONS.findIndex(([n]) => n === name);
const json = { filter: at('event-property filter (JSON)'), breakdown: at('event-property breakdown (JSON)') };
const column = {
  filter: at('event-property filter ($browser, column)'),
  breakdown: at('event-property breakdown ($browser, column)'),
};
console.log('\nperson vs event properties, engine medians; CPU-time ratios to the event property');
console.log(`${''.padEnd(48)} ${'wall ms'.padStart(8)} ${'CPU ms'.padStart(8)}  vs JSON  vs column`);
for (const [i, [name]] of PERSONS.entries()) {
  const kind = name.includes('breakdown') ? 'breakdown' : 'filter';
  const ci = c[i] as number;
  const ratio = (j: number) => (ci / (c[j] as number)).toFixed(2);
  report({
    case: `${name}, ${ROWS} events`,
    metric: 'engine CPU median',
    value: ci,
    unit: 'ms',
    ratio: ci / (c[column[kind]] as number),
    against: `event-property ${kind} ($browser, column)`,
    ...(name.includes('pmat_plan') && { goal: { op: '<=', value: 1.5, issue: 22, on: 'ratio' } }),
  });
  console.log(
    `${name.padEnd(48)} ${(w[i] as number).toFixed(0).padStart(8)} ${ci.toFixed(0).padStart(8)}  ${ratio(json[kind]).padStart(7)}  ${ratio(column[kind]).padStart(8)}`,
  );
}
console.log(`load average after: ${load()}`);
await close();
