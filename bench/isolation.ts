/**
 * Isolation between projects (issue 15 §1, docs/isolation.md): while project B runs 4 queries that
 * each take >= 30 s, how do project A's capture (`/batch/` latency and throughput) and A's
 * `SELECT 1` compare with an idle engine?
 *
 * The server runs in its own process (`src/main.ts` through tsx) so that the load generator does
 * not share its event loop. Closed-loop clients send `/batch/` requests of `--events` events each.
 *
 *   npm run bench:isolation -- [--seconds 30] [--clients 4] [--events 50]
 *
 * Targets: A's /batch/ p99 < 200 ms, A's SELECT 1 < 500 ms, capture throughput >= 50% of idle.
 *
 * `--case capture-flood` (issue 29) measures capture against capture instead: project A's
 * `--clients` (default 8) clients post gzip `/batch/` bodies of 10 000 events (~87 KB) as fast as
 * they are answered, while project B posts one-event `/batch/` requests one at a time. B's p50/p99
 * alone, A's throughput alone, then both at once. Target: B's p99 < 200 ms under A's flood.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { CHILD_STDIO, reporter, table } from './lib.js';

const report = reporter('isolation');

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    clients: { type: 'string', default: '4' },
    events: { type: 'string', default: '50' },
    case: { type: 'string', default: 'queries' },
  },
});
const SECONDS = Number(values.seconds);
const CASE = values.case;
const CLIENTS = Number(values.clients);
const EVENTS = Number(values.events);
const ADMIN_KEY = `phx_${'b'.repeat(32)}`;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

async function startServer(dataDir: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      BURROW_DATA_DIR: dataDir,
      PORT: String(port),
      BURROW_ADMIN_API_KEY: ADMIN_KEY,
      LOG_LEVEL: 'error',
      BATCH_EXPORTS_SCHEDULER: '0',
    },
    stdio: CHILD_STDIO,
  });
  for (let i = 0; i < 600; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/_health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error('server did not start');
}

interface Phase {
  batchMs: number[];
  events: number;
  errors: number;
  selectMs: number[];
  seconds: number;
}

/** Capture clients and a SELECT 1 prober against project A for `seconds`. */
async function measure(base: string, token: string, projectA: number, seconds: number): Promise<Phase> {
  const phase: Phase = { batchMs: [], events: 0, errors: 0, selectMs: [], seconds };
  const until = performance.now() + seconds * 1000;
  let n = 0;
  const client = async () => {
    while (performance.now() < until) {
      const batch = Array.from({ length: EVENTS }, () => ({
        event: '$pageview',
        distinct_id: `user-${n++ % 1000}`,
        properties: { $current_url: `https://example.com/${n % 50}`, plan: n % 3 ? 'free' : 'pro' },
      }));
      const t0 = performance.now();
      const res = await fetch(`${base}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: token, batch }),
      }).catch(() => null);
      await res?.arrayBuffer();
      phase.batchMs.push(performance.now() - t0);
      if (res?.ok) phase.events += EVENTS;
      else phase.errors++;
    }
  };
  const prober = async () => {
    let i = 0;
    while (performance.now() < until) {
      const t0 = performance.now();
      const res = await fetch(`${base}/api/environments/${projectA}/query/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
        // A different constant each time: a cached answer would not touch the engine.
        body: JSON.stringify({ query: { kind: 'HogQLQuery', query: `SELECT 1, ${i++}` } }),
      });
      await res.arrayBuffer();
      if (res.ok) phase.selectMs.push(performance.now() - t0);
      else phase.errors++;
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  await Promise.all([...Array.from({ length: CLIENTS }, client), prober()]);
  return phase;
}

async function main() {
  if (CASE === 'capture-flood') return captureFlood();
  const dataDir = mkdtempSync(join(tmpdir(), 'burrow-isolation-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await startServer(dataDir, port);
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok && res.status !== 202) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  try {
    const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
    const projectA = boot.project_id as number;
    const b = await api('POST', `/api/organizations/${boot.organization_id}/projects/`, { name: 'tenant B' });
    const projectB = b.id as number;

    // Warm-up: the first requests compile schemas, load the parser and create parts.
    await measure(base, boot.project_api_key, projectA, 3);
    console.log(`idle phase: ${SECONDS} s, ${CLIENTS} capture clients x ${EVENTS} events`);
    const idle = await measure(base, boot.project_api_key, projectA, SECONDS);

    const heavy = [0, 1, 2, 3].map((i) => `isolation-heavy-${i}`);
    for (const [i, id] of heavy.entries()) {
      await api('POST', `/api/environments/${projectB}/query/`, {
        query: {
          kind: 'HogQLQuery',
          query: `SELECT sum(cityHash64(number)) + ${i} FROM numbers(1000000000000)`,
        },
        refresh: 'force_async',
        client_query_id: id,
      });
    }
    await new Promise((r) => setTimeout(r, 1000));
    console.log(`loaded phase: project B runs ${heavy.length} heavy queries`);
    const started = performance.now();
    const loaded = await measure(base, boot.project_api_key, projectA, SECONDS);
    const statuses = await Promise.all(
      heavy.map((id) => api('GET', `/api/environments/${projectB}/query/${id}/`)),
    );
    const stillRunning = statuses.filter((s) => !s.query_status?.complete).length;
    const heavySeconds = (performance.now() - started) / 1000 + 1;
    for (const id of heavy) await api('DELETE', `/api/environments/${projectB}/query/${id}/`);

    const row = (name: string, p: Phase) => ({
      phase: name,
      'batch p50 ms': percentile(p.batchMs, 50),
      'batch p99 ms': percentile(p.batchMs, 99),
      'events/s': p.events / p.seconds,
      'SELECT 1 p50 ms': percentile(p.selectMs, 50),
      'SELECT 1 max ms': Math.max(...p.selectMs),
      errors: p.errors,
    });
    console.log(table([row('idle', idle), row('B runs 4 heavy queries', loaded)]));
    const ratio = loaded.events / loaded.seconds / (idle.events / idle.seconds);
    console.log(
      `B's queries still running after ${heavySeconds.toFixed(0)} s: ${stillRunning}/${heavy.length}; ` +
        `capture throughput under load: ${(ratio * 100).toFixed(0)}% of idle`,
    );
    console.log(
      `targets: batch p99 < 200 ms: ${percentile(loaded.batchMs, 99) < 200 ? 'met' : 'MISSED'}; ` +
        `SELECT 1 < 500 ms: ${Math.max(...loaded.selectMs) < 500 ? 'met' : 'MISSED'}; ` +
        `throughput >= 50%: ${ratio >= 0.5 ? 'met' : 'MISSED'}`,
    );
    for (const [label, p] of [
      ['idle', idle],
      ['B runs 4 heavy queries', loaded],
    ] as const) {
      const what = `project A, ${label}`;
      const underLoad = p === loaded;
      report({
        case: what,
        metric: '/batch/ p99',
        value: percentile(p.batchMs, 99),
        unit: 'ms',
        ...(underLoad && { goal: { op: '<', value: 200, issue: 15 } }),
      });
      report({
        case: what,
        metric: 'SELECT 1 max',
        value: Math.max(...p.selectMs),
        unit: 'ms',
        ...(underLoad && { goal: { op: '<', value: 500, issue: 15 } }),
      });
      report({
        case: what,
        metric: 'capture events/s',
        value: p.events / p.seconds,
        unit: 'events/s',
        ...(underLoad && {
          ratio,
          against: 'the idle phase',
          goal: { op: '>=', value: 0.5, issue: 15, on: 'ratio' },
        }),
      });
    }
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Project A's flood body: 10 000 events as posthog-node sends them, ~1.8 MB of JSON, ~88 KB gzipped. */
function floodBody(token: string, round: number): Buffer {
  const now = Date.now();
  const batch = Array.from({ length: 10_000 }, (_, i) => ({
    event: '$pageview',
    distinct_id: `user-${(i * 7919 + round) % 1000}`,
    timestamp: new Date(now - i * 1000).toISOString(),
    properties: {
      $current_url: `https://example.com/${i % 50}`,
      plan: i % 3 ? 'free' : 'pro',
      $lib: 'posthog-node',
    },
  }));
  return gzipSync(JSON.stringify({ api_key: token, batch }));
}

interface FloodPhase {
  bMs: number[];
  bErrors: number;
  aEvents: number;
  aErrors: number;
  aMs: number[];
  seconds: number;
}

/** A's flood clients (when `flood`) and B's one-event requests (when `probe`) for `seconds`. */
async function floodPhase(
  base: string,
  tokens: { a: string; b: string },
  bodies: Buffer[],
  seconds: number,
  { flood, probe }: { flood: boolean; probe: boolean },
): Promise<FloodPhase> {
  const phase: FloodPhase = { bMs: [], bErrors: 0, aEvents: 0, aErrors: 0, aMs: [], seconds };
  const until = performance.now() + seconds * 1000;
  const floodClient = async (c: number) => {
    for (let i = c; performance.now() < until; i++) {
      const t0 = performance.now();
      const res = await fetch(`${base}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: bodies[i % bodies.length],
      }).catch(() => null);
      await res?.arrayBuffer();
      if (res?.ok) {
        phase.aEvents += 10_000;
        phase.aMs.push(performance.now() - t0);
      } else {
        phase.aErrors++;
        // As the SDKs do on 503 (Retry-After): back off instead of hammering.
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  const prober = async () => {
    let n = 0;
    while (performance.now() < until) {
      const t0 = performance.now();
      const res = await fetch(`${base}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          api_key: tokens.b,
          batch: [{ event: 'b-probe', distinct_id: `b-${n++ % 10}` }],
        }),
      }).catch(() => null);
      await res?.arrayBuffer();
      if (res?.ok) phase.bMs.push(performance.now() - t0);
      else phase.bErrors++;
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const clients = flood ? Array.from({ length: CLIENTS }, (_, c) => floodClient(c)) : [];
  await Promise.all([...clients, ...(probe ? [prober()] : [])]);
  return phase;
}

async function captureFlood() {
  const clients = values.clients === '4' ? 8 : CLIENTS;
  const dataDir = mkdtempSync(join(tmpdir(), 'burrow-isolation-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await startServer(dataDir, port);
  try {
    const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
    const res = await fetch(`${base}/api/organizations/${boot.organization_id}/projects/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
      body: JSON.stringify({ name: 'tenant B' }),
    });
    const projectB = (await res.json()) as { api_token: string };
    const tokens = { a: boot.project_api_key as string, b: projectB.api_token };
    const bodies = Array.from({ length: 4 }, (_, round) => floodBody(tokens.a, round));
    console.log(
      `capture flood: A ${clients} clients x 10 000 events (${(bodies[0]!.length / 1024).toFixed(0)} KB gzip), ` +
        `B one-event /batch/ requests; ${SECONDS} s per phase`,
    );
    // Warm-up: persons of both projects, schemas, the parser.
    await floodPhase(base, tokens, bodies, 3, { flood: true, probe: true });
    await new Promise((r) => setTimeout(r, 2000));
    const alone = await floodPhase(base, tokens, bodies, SECONDS, { flood: false, probe: true });
    const aAlone = await floodPhase(base, tokens, bodies, SECONDS, { flood: true, probe: false });
    await new Promise((r) => setTimeout(r, 2000));
    const both = await floodPhase(base, tokens, bodies, SECONDS, { flood: true, probe: true });
    const row = (name: string, p: FloodPhase) => ({
      phase: name,
      "B's requests": p.bMs.length,
      'B p50 ms': percentile(p.bMs, 50),
      'B p99 ms': percentile(p.bMs, 99),
      'B max ms': p.bMs.length ? Math.max(...p.bMs) : Number.NaN,
      'A events/s': p.aEvents / p.seconds,
      'A p50 ms': percentile(p.aMs, 50),
      'A errors': p.aErrors,
      'B errors': p.bErrors,
    });
    console.log(table([row('B alone', alone), row('A alone', aAlone), row('A floods, B captures', both)]));
    const p99 = percentile(both.bMs, 99);
    console.log(
      `target: B's p99 under A's flood < 200 ms: ${p99 < 200 && both.bErrors === 0 ? 'met' : 'MISSED'}; ` +
        `A's throughput with B: ${((both.aEvents / (aAlone.aEvents || 1)) * 100).toFixed(0)}% of A alone`,
    );
    report({
      case: "project B's one-event /batch/ under A's flood",
      metric: 'p99',
      value: p99,
      unit: 'ms',
      ratio: p99 / percentile(alone.bMs, 99),
      against: 'B alone',
      goal: { op: '<', value: 200, issue: 29 },
    });
    report({ case: 'project B alone', metric: 'p99', value: percentile(alone.bMs, 99), unit: 'ms' });
    report({
      case: "project A's flood while B captures",
      metric: 'events/s',
      value: both.aEvents / both.seconds,
      unit: 'events/s',
      ratio: both.aEvents / (aAlone.aEvents || 1),
      against: 'A alone',
    });
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
