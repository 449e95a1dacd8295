/**
 * Batch export throughput and memory: one window exported by Burrow's run executor (pages from
 * chDB, COPY + upsert into PostgreSQL / JSONLines+gzip multipart upload to S3) versus the plain
 * path on the same rows (one query, one COPY / one gzip PutObject). Each path runs in its own
 * process (bench/export-phase.ts) so peak RSS is comparable; a small window shows whether the
 * run's memory grows with the rows. PostgreSQL is the machine's; S3 is s3rver in this process.
 * Usage: npm run bench:export [-- --rows 1000000 --small 200000]
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import S3rver from 's3rver';
import { loadConfig } from '../src/config.js';
import { bootstrap } from '../src/domain/organizations/bootstrap.js';
import { openStores } from '../src/server/runtime.js';
import { formatTimestamp } from '../src/store/events/insert.js';
import { insertEvents } from '../test/helpers/events-insert.js';
import { reporter, table } from './lib.js';

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '1000000' }, small: { type: 'string', default: '200000' } },
});
const ROWS = Number(values.rows);
const SMALL = Number(values.small);
const dir = mkdtempSync(join(tmpdir(), 'burrow-bench-export-'));
const db = `burrow_bench_export_${process.pid}`;

async function admin(sql: string) {
  const c = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await c.connect();
  await c.query(sql);
  await c.end();
}

/** `n` events arriving evenly over [hour:00, hour+1:00) on 2024-05-01. */
async function load(n: number, hour: number) {
  const stores = await openStores(loadConfig({ BURROW_DATA_DIR: dir, LOG_LEVEL: 'silent' }));
  const boot = await bootstrap(
    { meta: stores.meta.db, now: () => new Date() },
    { adminEmail: 'bench@burrow.local', adminApiKey: undefined },
  );
  for (let i = 0; i < n; i += 100_000) {
    const rows = Array.from({ length: Math.min(100_000, n - i) }, (_, j) => {
      const at = formatTimestamp(Date.UTC(2024, 4, 1, hour) + Math.floor(((i + j) / n) * 3_599_000));
      return {
        uuid: randomUUID(),
        event: j % 5 === 0 ? '$pageview' : `event ${j % 40}`,
        properties: JSON.stringify({
          $browser: 'Firefox',
          $current_url: `https://shop.test/p/${j % 500}`,
          plan: 'pro',
          n: i + j,
        }),
        timestamp: at,
        team_id: 1,
        distinct_id: `user-${(i + j) % 10_000}`,
        inserted_at: at,
      };
    });
    await insertEvents(stores.events, rows);
  }
  if (boot && boot.project_id !== 1) throw new Error('expected project 1');
  await stores.close();
}

await admin(`DROP DATABASE IF EXISTS ${db}`);
await admin(`CREATE DATABASE ${db}`);
const server = new S3rver({
  port: 0,
  address: '127.0.0.1',
  silent: true,
  directory: join(dir, 's3'),
  configureBuckets: [{ name: 'bench', configs: [] }],
});
const { port } = await server.run();
const endpoint = `http://127.0.0.1:${port}`;

/** Runs a phase in a child; the parent only serves S3 meanwhile. */
async function phase(name: string, hour: number) {
  const args = ['--import', 'tsx', join(import.meta.dirname, 'export-phase.ts')];
  const opts = [
    '--phase',
    name,
    '--dir',
    dir,
    '--hour',
    String(hour),
    '--db',
    db,
    '--endpoint',
    endpoint,
    '--team',
    '1',
  ];
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [...args, ...opts], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  const code = await new Promise((r) => child.on('exit', r));
  if (code !== 0) throw new Error(`${name} exited ${code}`);
  return JSON.parse(out.trim().split('\n').pop()!) as {
    rows: number;
    seconds: number;
    startMb: number;
    peakMb: number;
  };
}

try {
  process.stderr.write(`loading ${SMALL} + ${ROWS} events...\n`);
  await load(SMALL, 10);
  await load(ROWS, 12);
  const results: Array<Record<string, string | number>> = [];
  const rates: Record<string, number> = {};
  const peaks: Record<string, number> = {};
  const plan: Array<[string, string, number]> = [
    ['Burrow → PostgreSQL', 'burrow-pg', 10],
    ['Burrow → PostgreSQL', 'burrow-pg', 12],
    ['plain query + COPY → PostgreSQL', 'plain-pg', 12],
    ['Burrow → S3 (JSONLines, gzip)', 'burrow-s3', 10],
    ['Burrow → S3 (JSONLines, gzip)', 'burrow-s3', 12],
    ['plain query + gzip + PutObject → S3', 'plain-s3', 12],
  ];
  for (const [label, name, hour] of plan) {
    const r = await phase(name, hour);
    rates[`${name}-${hour}`] = r.rows / r.seconds;
    peaks[`${name}-${hour}`] = r.peakMb;
    results.push({
      path: label,
      rows: r.rows,
      seconds: r.seconds,
      'rows/s': Math.round(r.rows / r.seconds),
      'RSS at start MB': Math.round(r.startMb),
      'peak RSS MB': Math.round(r.peakMb),
    });
  }
  console.log(table(results));
  const ratio = (x: string, y: string) => ((rates[x] ?? 0) / (rates[y] ?? 1)).toFixed(2);
  console.log(`\nPostgreSQL: Burrow / plain rows/s = ${ratio('burrow-pg-12', 'plain-pg-12')}`);
  console.log(`S3:         Burrow / plain rows/s = ${ratio('burrow-s3-12', 'plain-s3-12')}`);
  const report = reporter('export');
  for (const [target, label, plain] of [
    ['pg', 'Burrow → PostgreSQL', 'a plain query + COPY of the same rows'],
    ['s3', 'Burrow → S3 (JSONLines, gzip)', 'a plain query + gzip + PutObject of the same rows'],
  ] as const) {
    const burrow = `burrow-${target}-12`;
    const what = `${label}, one window of ${ROWS} rows`;
    report({
      case: what,
      metric: 'rows/s',
      value: rates[burrow] ?? 0,
      unit: 'rows/s',
      ratio: (rates[burrow] ?? 0) / (rates[`plain-${target}-12`] ?? 1),
      against: plain,
      goal: { op: '>=', value: 0.5, issue: 9, on: 'ratio' },
    });
    // "RSS flat in the number of rows" (#9) has no figure: the peak at ROWS against the peak at SMALL.
    report({
      case: what,
      metric: 'peak RSS',
      value: peaks[burrow] ?? 0,
      unit: 'MB',
      ratio: (peaks[burrow] ?? 0) / (peaks[`burrow-${target}-10`] ?? 1),
      against: `the same path's peak for a window of ${SMALL} rows`,
    });
    report({
      case: `${label}, one window of ${SMALL} rows`,
      metric: 'peak RSS',
      value: peaks[`burrow-${target}-10`] ?? 0,
      unit: 'MB',
    });
    report({
      case: `${plain}, ${ROWS} rows`,
      metric: 'peak RSS',
      value: peaks[`plain-${target}-12`] ?? 0,
      unit: 'MB',
    });
  }
  console.log(`load average: ${execFileSync('cat', ['/proc/loadavg']).toString().trim()}`);
} finally {
  await server.close();
  await admin(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  rmSync(dir, { recursive: true, force: true });
}
