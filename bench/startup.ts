/**
 * Cold start to ready, and idle RSS, of the built server (dist/) on the embedded stores, against a
 * process that only opens the same two engines (chDB and SQLite) and runs one query on each.
 * Usage: npm run build && npm run bench:startup [-- --runs 5]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median, reporter, table } from './lib.js';

const ROOT = join(import.meta.dirname, '..');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Number(values.runs);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return Number(line?.[1] ?? 0) / 1024;
}

/** Spawn the server and poll /_readyz until it answers 200; returns ms from spawn and idle RSS. */
async function startServer(dataDir: string): Promise<{ ms: number; rss: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [join(ROOT, 'dist/main.js')], {
    env: { ...process.env, BURROW_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  let ms = 0;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/_readyz`);
      if (res.status === 200) {
        ms = performance.now() - started;
        break;
      }
    } catch {
      // not listening yet
    }
    if (performance.now() - started > 30_000) throw new Error('server did not become ready');
    await new Promise((r) => setTimeout(r, 5));
  }
  await new Promise((r) => setTimeout(r, 1000));
  const rss = rssMb(child.pid as number);
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  return { ms, rss };
}

const RAW = `
const t0 = performance.now();
const { Session } = require('chdb');
const Database = require('better-sqlite3');
const dir = process.argv[1];
const s = new Session(dir + '/events');
s.query('SELECT 1');
const db = new Database(dir + '/meta.sqlite');
db.pragma('journal_mode = WAL');
db.prepare('SELECT 1').get();
setTimeout(() => {
  const rss = Number(require('fs').readFileSync('/proc/self/status', 'utf8').match(/VmRSS:\\s+(\\d+) kB/)[1]) / 1024;
  process.stdout.write(JSON.stringify({ rss }));
  s.cleanup?.(); process.exit(0);
}, 1000);
`;

/** The engines alone: ms from spawn until both answered, and RSS after the same idle second. */
async function startRaw(dataDir: string): Promise<{ ms: number; rss: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', RAW, dataDir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c) => {
    out += c;
  });
  await new Promise((resolve) => child.once('exit', resolve));
  return { ms: performance.now() - started - 1000, rss: JSON.parse(out).rss };
}

const results = {
  first: [] as number[],
  restart: [] as number[],
  raw: [] as number[],
  rss: [] as number[],
  rawRss: [] as number[],
};
for (let i = 0; i < runs; i++) {
  const dir = mkdtempSync(join(tmpdir(), 'burrow-bench-start-'));
  const first = await startServer(dir);
  const again = await startServer(dir);
  const rawDir = mkdtempSync(join(tmpdir(), 'burrow-bench-raw-'));
  const raw = await startRaw(rawDir);
  results.first.push(first.ms);
  results.restart.push(again.ms);
  results.raw.push(raw.ms);
  results.rss.push(again.rss);
  results.rawRss.push(raw.rss);
  rmSync(dir, { recursive: true, force: true });
  rmSync(rawDir, { recursive: true, force: true });
}

const raw = median(results.raw);
console.log(`${runs} runs each, medians; "ready" = first 200 from /_readyz after spawn\n`);
console.log(
  table([
    {
      case: 'burrow, first start (bootstrap)',
      'ms to ready': median(results.first),
      'ratio vs engines': median(results.first) / raw,
    },
    {
      case: 'burrow, restart',
      'ms to ready': median(results.restart),
      'ratio vs engines': median(results.restart) / raw,
    },
    { case: 'engines alone (chDB + SQLite, one query each)', 'ms to ready': raw, 'ratio vs engines': 1 },
  ]),
);
console.log('');
console.log(
  table([
    { process: 'burrow idle', 'RSS MB': median(results.rss) },
    { process: 'engines alone idle', 'RSS MB': median(results.rawRss) },
  ]),
);

const report = reporter('startup');
const engines = 'engines alone (chDB + SQLite, one query each)';
for (const [label, ms] of [
  ['burrow, first start (bootstrap)', median(results.first)],
  ['burrow, restart', median(results.restart)],
] as const) {
  report({
    case: label,
    metric: 'ms to ready',
    value: ms,
    unit: 'ms',
    ratio: ms / raw,
    against: engines,
    goal: { op: '<', value: 1500, issue: 2 },
  });
}
report({ case: engines, metric: 'ms to ready', value: raw, unit: 'ms' });
report({
  case: 'burrow idle',
  metric: 'RSS',
  value: median(results.rss),
  unit: 'MB',
  goal: { op: '<', value: 350, issue: 20 },
});
report({ case: 'engines alone idle', metric: 'RSS', value: median(results.rawRss), unit: 'MB' });
