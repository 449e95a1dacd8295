/**
 * Bound parameters versus inline escaped literals, under concurrency. chDB serializes every
 * parameterized call process-wide (engine-notes.md), so binding may cost throughput; this
 * measures queries/s both ways on the same data in the same run.
 * Run: npm run bench:hogql-params
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { compileSelect } from '../src/hogql/compile.js';
import { loadParser } from '../src/hogql/parse.js';
import { openEventsStore } from '../src/store/events/store.js';
import { type EventRow, insertEvents } from '../test/helpers/events-insert.js';
import { reporter } from './lib.js';

const ROWS = 200_000;
const SECONDS = 5;
const dir = mkdtempSync(join(tmpdir(), 'burrow-bench-params-'));
const store = await openEventsStore({ dataDir: dir, database: 'bench_params' });
await loadParser();

const names = ['$pageview', 'signup', 'purchase', '$autocapture', 'logout'];
const rows: EventRow[] = [];
for (let i = 0; i < ROWS; i++) {
  const ts = new Date(Date.UTC(2025, 0, 1) + i * 10_000).toISOString().replace('T', ' ').replace('Z', '000');
  rows.push({
    uuid: `0190b6a4-0000-7000-8000-${String(i).padStart(12, '0')}`,
    event: names[i % names.length] as string,
    properties: JSON.stringify({ $browser: i % 3 ? 'Chrome' : 'Firefox', plan: i % 7 ? 'free' : 'pro' }),
    timestamp: ts,
    team_id: 1,
    distinct_id: `u${i % 5000}`,
  });
}
await insertEvents(store, rows);
await store.command(`OPTIMIZE TABLE ${store.table('events')} FINAL`);

const query =
  "SELECT event, count() FROM events WHERE event != 'logout' AND properties.plan = 'pro' GROUP BY event";
const base = { teamId: 1, timezone: 'UTC', weekStartDay: 0 as const, table: (t: string) => store.table(t) };

async function throughput(inline: boolean, concurrency: number): Promise<number> {
  const c = compileSelect(query, { ...base, inlineStrings: inline });
  const end = performance.now() + SECONDS * 1000;
  let done = 0;
  const worker = async () => {
    while (performance.now() < end) {
      await store.query(c.sql, inline ? {} : { params: c.params });
      done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return done / SECONDS;
}

// Not a target of BENCHMARKS.md's table (a decision's measurement): reported without a goal.
const report = reporter('hogql-params');
for (const concurrency of [1, 4, 8]) {
  const bound = await throughput(false, concurrency);
  const inline = await throughput(true, concurrency);
  report({
    case: `bound parameters, ${concurrency} in flight, ${ROWS} events`,
    metric: 'queries/s',
    value: bound,
    unit: 'queries/s',
    ratio: bound / inline,
    against: 'the same query with inline escaped literals',
  });
  console.log(
    `concurrency ${concurrency}: bound ${bound.toFixed(0)} q/s, inline ${inline.toFixed(0)} q/s, bound/inline ${(bound / inline).toFixed(2)}`,
  );
}
await store.close();
rmSync(dir, { recursive: true, force: true });
