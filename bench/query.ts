/**
 * The /query API against the raw engine: an 8-query suite on generated events, each run through
 * `POST /query` with `force_blocking` and, in the same run, the same compiled SQL sent straight to
 * the engine. Prints medians and ratios. Run: npm run bench:query -- --rows 10000000 [--dir d]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { bootstrap } from '../src/domain/bootstrap.js';
import { compileSelect } from '../src/hogql/compile.js';
import { loadParser } from '../src/hogql/parse.js';
import { buildApp } from '../src/server/app.js';
import { writeBootstrapFile } from '../src/server/bootstrap-file.js';
import { openStores } from '../src/server/runtime.js';
import { insertDistinctIds, insertEvents, insertPersons } from '../src/store/events/insert.js';
import { eventRow, generator, personRows } from './event-generator.js';
import { interleaved, postQuery } from './lib.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '10000000' },
    runs: { type: 'string', default: '7' },
    dir: { type: 'string' },
  },
});
const ROWS = Number(values.rows);
const RUNS = Number(values.runs);
const dataDir = values.dir ?? mkdtempSync(join(tmpdir(), 'burrow-bench-query-'));
const config = loadConfig({ BURROW_DATA_DIR: dataDir, LOG_LEVEL: 'error' });
const stores = await openStores(config);
const deps = { meta: stores.meta.db, events: stores.events, now: () => new Date() };
const boot = await bootstrap(deps, { adminEmail: config.adminEmail, adminApiKey: config.adminApiKey });
// Written so that a later run with the same --dir finds the key (the server does this on first start).
if (boot) writeBootstrapFile(dataDir, boot);
const { readFileSync } = await import('node:fs');
const creds = boot ?? JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
const team = creds.project_id as number;
const events = stores.events;

const [counted] = await events.query<{ n: number }>(`SELECT count() AS n FROM ${events.table('events')}`);
const n = counted?.n ?? 0;
if (n < ROWS) {
  console.log(`generating ${ROWS} events...`);
  const g = generator();
  const t0 = performance.now();
  for (let i = n; i < ROWS; i += 100_000) {
    const batch = [];
    for (let j = i; j < Math.min(ROWS, i + 100_000); j++) batch.push(eventRow(g, j, team));
    await insertEvents(events, batch);
  }
  const { persons, pdis } = personRows(g, team);
  await insertPersons(events, persons);
  await insertDistinctIds(events, pdis);
  await events.command(`OPTIMIZE TABLE ${events.table('events')} FINAL`);
  console.log(`generated in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

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

await loadParser();
const app = await buildApp({ config, meta: stores.meta, events, bus: stores.bus });
const url = await app.listen({ port: 0, host: '127.0.0.1' });
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
    () => postQuery(url, team, creds.personal_api_key, { kind: 'HogQLQuery', query: hogql }),
    () => events.queryRows(compiled.sql, { params: compiled.params }),
  );
  ratios.push(ratio);
  console.log(
    `${name.padEnd(36)} api ${apiMs.toFixed(1).padStart(8)}  engine ${rawMs.toFixed(1).padStart(8)}  ratio ${ratio.toFixed(2)}`,
  );
}
console.log(`median ratio ${median(ratios).toFixed(2)} (target ≤ 1.10 per query)`);
await app.close();
await stores.close();
