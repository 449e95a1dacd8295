import { type StdioOptions, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';

/**
 * `--json`: every bench that reports a figure of BENCHMARKS.md's table prints one JSON object per
 * result on stdout (`report`), so the table can be checked against a run by a program. The flag is
 * taken out of `process.argv` when this module loads (imports run before a script's own
 * `parseArgs`, which would refuse an unknown option), and the human output (`console.log`) goes to
 * stderr instead, so stdout holds nothing but the results. Without the flag nothing changes.
 */
export const JSON_OUTPUT = takeJsonFlag();

function takeJsonFlag(): boolean {
  const at = process.argv.indexOf('--json', 2);
  if (at < 0) return false;
  process.argv.splice(at, 1);
  console.log = (...args: unknown[]) => console.error(...args);
  return true;
}

/** For a child process (a server, a load generator) whose output should stay human: off stdout with `--json`. */
export const CHILD_STDIO: StdioOptions = JSON_OUTPUT ? ['ignore', 2, 'inherit'] : 'inherit';

/** A goal as BENCHMARKS.md's table states it, e.g. `{ op: '>=', value: 0.6, issue: 22 }` on `ratio`. */
export interface Goal {
  op: '<' | '<=' | '>=' | '>';
  value: number;
  /** The issue that set it. */
  issue?: number;
  /** What the goal is compared with: `value` (the default) or `ratio`. */
  on?: 'value' | 'ratio';
}

/** One result of a bench, as `--json` prints it (one line each). */
export interface BenchResult {
  /** The script's name without `.ts`, e.g. `ingest`. */
  bench: string;
  /** What was measured, e.g. `POST /flags/?v=2 (50 flags, stored person)`. */
  case: string;
  /** Which figure of it, e.g. `p99`, `events/s`, `server CPU per request`. */
  metric: string;
  value: number;
  /** `ms`, `µs`, `req/s`, `events/s`, `MB`, `KB`, `%`, `x` (a plain ratio)... */
  unit: string;
  /** Against the bench's floor measured in the same run (hello world, the engine, hand SQL...). */
  ratio?: number;
  /** What it is measured against, e.g. `the engine's own insert of the same rows`. */
  against?: string;
  goal?: Goal;
  /** Whether `goal` is met by this result (present whenever `goal` is). */
  met?: boolean;
}

const compare = (op: Goal['op'], x: number, y: number) =>
  op === '<' ? x < y : op === '<=' ? x <= y : op === '>=' ? x >= y : x > y;

/**
 * The reporting function of one bench: with `--json` each call prints a `BenchResult` line on
 * stdout; without it, nothing (the bench prints its own tables). Non-finite values print as null.
 */
export function reporter(bench: string) {
  return (r: Omit<BenchResult, 'bench' | 'met'>): void => {
    if (!JSON_OUTPUT) return;
    const out: BenchResult = { bench, ...r };
    if (r.goal) {
      const x = r.goal.on === 'ratio' ? r.ratio : r.value;
      out.met = x !== undefined && Number.isFinite(x) && compare(r.goal.op, x, r.goal.value);
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
  };
}

/** The bench server's app, for benches that add their own routes before it listens. */
type BenchApp = FastifyInstance;

const require = createRequire(import.meta.url);

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** Requests completed in the run. */
  requests?: number;
}

/** Runs autocannon in its own process so that the load generator does not share our event loop. */
export function autocannon(
  url: string,
  options: {
    connections: number;
    seconds: number;
    headers?: Record<string, string>;
    method?: 'GET' | 'POST';
    body?: string;
    /** POST with `[<id>]` in the body replaced by a new id per request (bench/autocannon-unique.mjs). */
    idReplacement?: boolean;
  },
) {
  const bin = require.resolve('autocannon/autocannon.js');
  const args = [bin, '-j', '-c', String(options.connections), '-d', String(options.seconds)];
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push('-H', `${k}=${v}`);
  if (options.method) args.push('-m', options.method);
  if (options.body !== undefined) args.push('-b', options.body);
  args.push(url);
  if (options.idReplacement) {
    args.splice(0, args.length, new URL('./autocannon-unique.mjs', import.meta.url).pathname, url);
    args.push(String(options.connections), String(options.seconds), options.body ?? '');
    for (const [k, v] of Object.entries(options.headers ?? {})) args.push(`${k}=${v}`);
  }
  return new Promise<LoadResult>((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited ${code}`));
      const r = JSON.parse(out);
      resolve({
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        errors: r.errors,
        non2xx: r.non2xx,
        requests: r.requests.total,
      });
    });
  });
}

export function table(rows: Array<Record<string, string | number>>): string {
  const cols = Object.keys(rows[0] ?? {});
  const fmt = (v: string | number) =>
    typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : v;
  const lines = [`| ${cols.join(' | ')} |`, `|${cols.map(() => '---').join('|')}|`];
  for (const row of rows) lines.push(`| ${cols.map((c) => fmt(row[c] ?? '')).join(' | ')} |`);
  return lines.join('\n');
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/**
 * Times `a` and `b` `runs` times each after one warm-up of both, alternating which goes first so
 * that neither always runs on the caches (or the quiet moment) the other leaves; medians in ms.
 */
export async function interleaved(
  runs: number,
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<{ a: number; b: number; ratio: number }> {
  const times = { a: [] as number[], b: [] as number[] };
  const time = async (fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  };
  for (let r = 0; r <= runs; r++) {
    const order = r % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const which of order) {
      const ms = await time(which === 'a' ? a : b);
      if (r > 0) times[which].push(ms);
    }
  }
  const ma = median(times.a);
  const mb = median(times.b);
  return { a: ma, b: mb, ratio: ma / mb };
}

/** One `POST /query` with `force_blocking` through real HTTP; throws unless it answers 200. */
export async function postQuery(base: string, team: number, key: string, query: object): Promise<unknown> {
  const res = await fetch(`${base}/api/environments/${team}/query/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, refresh: 'force_blocking' }),
  });
  if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
  return res.json();
}

/** `--seconds`, `--connections` and `--rounds` of the HTTP load benches (5 s, 64, 3 by default). */
export function loadOptions() {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '5' },
      connections: { type: 'string', default: '64' },
      rounds: { type: 'string', default: '3' },
      // One route alone (e.g. for `node --cpu-prof`), where a bench supports it.
      only: { type: 'string' },
    },
  });
  return {
    seconds: Number(values.seconds),
    connections: Number(values.connections),
    rounds: Number(values.rounds),
    only: values.only,
  };
}

export const HELLO_PATH = '/_bench/hello';

/**
 * A fresh installation (SQLite, or PostgreSQL with DATABASE_URL) served on loopback, with a Fastify
 * hello-world route beside the API: the baseline the HTTP benches' ratios are taken against, on the
 * same server in the same run. The server is imported here, not at the top, so benches that only
 * use the helpers above do not load it.
 */
export async function benchServer(name: string, routes?: (app: BenchApp) => void) {
  const { loadConfig } = await import('../src/config.js');
  const { PUBLIC } = await import('../src/domain/scopes.js');
  const { buildApp } = await import('../src/server/app.js');
  const { createLogger } = await import('../src/server/logger.js');
  const { bootstrapInstallation, openStores } = await import('../src/server/runtime.js');
  const dataDir = mkdtempSync(join(tmpdir(), `burrow-bench-${name}-`));
  const config = loadConfig({
    BURROW_DATA_DIR: dataDir,
    DATABASE_URL: process.env.DATABASE_URL,
    PORT: '0',
    LOG_LEVEL: 'silent',
  });
  const stores = await openStores(config);
  await bootstrapInstallation(config, stores, createLogger('silent'));
  const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as {
    personal_api_key: string;
    project_api_key: string;
    project_id: number;
  };
  const app = await buildApp({ config, meta: stores.meta, events: stores.events, bus: stores.bus });
  app.get(HELLO_PATH, { config: { scope: PUBLIC } }, async () => ({ hello: 'world' }));
  routes?.(app);
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    app,
    stores,
    boot,
    base,
    auth: { authorization: `Bearer ${boot.personal_api_key}` },
    async close() {
      await app.close();
      await stores.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The medians of one route's rounds (errors and non-2xx answers summed). */
export const medianOf = (samples: LoadResult[]): LoadResult => ({
  rps: median(samples.map((r) => r.rps)),
  p50: median(samples.map((r) => r.p50)),
  p99: median(samples.map((r) => r.p99)),
  errors: samples.reduce((n, r) => n + r.errors, 0),
  non2xx: samples.reduce((n, r) => n + r.non2xx, 0),
});

/** A results table row with its throughput as a ratio of the hello-world baseline's. */
export const rowAgainst = (hello: LoadResult) => (name: string, r: LoadResult) => ({
  route: name,
  'req/s': Math.round(r.rps),
  'p50 ms': r.p50,
  'p99 ms': r.p99,
  'ratio vs hello': r.rps / hello.rps,
  'errors+non2xx': r.errors + r.non2xx,
});

/** The line above a load bench's table: the store and how it was measured. */
export const loadHeader = (dialect: string, o: { connections: number; seconds: number; rounds: number }) =>
  `metadata store: ${dialect}; ${o.connections} connections, ${o.seconds}s per run, median of ${o.rounds} interleaved rounds\n`;
