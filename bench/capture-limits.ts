/**
 * Is the server still responsive while clients send the largest capture requests it accepts?
 * 8 clients each post, back to back, a /batch/ body at the limits (10 000 events, just under
 * 25 MiB once decompressed, gzip on the wire) while a prober polls /_health every 10 ms; then one
 * request of 300 000 tiny events (a 751 KB gzip body, refused). Reports /_health latency
 * percentiles, capture throughput, statuses and the server's peak RSS.
 * Usage: npm run build && npm run bench:capture-limits [-- --seconds 20 --clients 8]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { CHILD_STDIO, reporter } from './lib.js';

const ROOT = join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    clients: { type: 'string', default: '8' },
    events: { type: 'string', default: '10000' },
  },
});
const seconds = Number(values.seconds);
const clients = Number(values.clients);
const perRequest = Number(values.events);
const LIMIT = 25 * 1024 * 1024;

const loadBefore = loadavg()[0]?.toFixed(2);
const dir = mkdtempSync(join(tmpdir(), 'burrow-bench-limits-'));
const port = 19_000 + Math.floor(Math.random() * 1000);
// BENCH_SERVER: another build to compare (e.g. the commit before the limits); BENCH_NODE_ARGS: --cpu-prof…
const nodeArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [];
const child = spawn(process.execPath, [...nodeArgs, process.env.BENCH_SERVER ?? join(ROOT, 'dist/main.js')], {
  env: { ...process.env, BURROW_DATA_DIR: dir, PORT: String(port), LOG_LEVEL: 'warn' },
  stdio: CHILD_STDIO,
});
const base = `http://127.0.0.1:${port}`;
for (;;) {
  try {
    if ((await fetch(`${base}/_readyz`)).ok) break;
  } catch {}
  await new Promise((r) => setTimeout(r, 50));
}
const token = JSON.parse(readFileSync(join(dir, 'bootstrap.json'), 'utf8')).project_api_key as string;

/** Events padded so that the decoded body lands just under the limit. */
function largestBody(): { body: Buffer; decoded: number } {
  const bare = JSON.stringify({ api_key: token, batch: events(0), sent_at: new Date().toISOString() });
  const pad = Math.floor((LIMIT - 4096 - bare.length) / perRequest);
  const json = JSON.stringify({ api_key: token, batch: events(pad), sent_at: new Date().toISOString() });
  return { body: gzipSync(json), decoded: Buffer.byteLength(json) };
}

function events(pad: number) {
  return Array.from({ length: perRequest }, (_, i) => ({
    event: i % 2 ? '$pageview' : 'clicked',
    distinct_id: `user-${i % 1000}`,
    properties: {
      $current_url: `https://shop.test/p/${i}`,
      $browser: 'Chrome',
      plan: i % 3 ? 'free' : 'pro',
      note: `${i}-`.repeat(Math.ceil(pad / 2)).slice(0, pad),
    },
  }));
}

const largest = largestBody();
if (largest.decoded > LIMIT) throw new Error(`body of ${largest.decoded} bytes is over the limit`);

function rssPeakMb(): number {
  const line = readFileSync(`/proc/${child.pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/);
  return Math.round(Number(line?.[1] ?? 0) / 1024);
}

async function probeWhile(running: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  while (running()) {
    const start = performance.now();
    const res = await fetch(`${base}/_health`);
    await res.arrayBuffer();
    latencies.push(performance.now() - start);
    await new Promise((r) => setTimeout(r, 10));
  }
  return latencies;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const summary = (latencies: number[]) => {
  const s = [...latencies].sort((a, b) => a - b);
  return `n=${s.length} p50=${pct(s, 0.5).toFixed(1)} p99=${pct(s, 0.99).toFixed(1)} max=${(s.at(-1) ?? 0).toFixed(1)} ms`;
};

// 1. Idle baseline.
let until = performance.now() + 2000;
const idle = await probeWhile(() => performance.now() < until);

// 2. Clients at the limits.
const statuses = new Map<number, number>();
let accepted = 0;
const clientRss = rssPeakMb();
until = performance.now() + seconds * 1000;
const loaded = probeWhile(() => performance.now() < until);
await Promise.all(
  Array.from({ length: clients }, async () => {
    while (performance.now() < until) {
      const res = await fetch(`${base}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: largest.body,
      });
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status === 200) accepted += perRequest;
    }
  }),
);
const underLoad = await loaded;
const elapsed = seconds + 0; // the clients stop sending at `until`; the last requests finish after

// 3. The review's request: 300 000 tiny events.
const attack = gzipSync(
  JSON.stringify({
    api_key: token,
    batch: Array.from({ length: 300_000 }, (_, i) => ({ event: 'e', distinct_id: `d${i % 7}` })),
  }),
);
let attacking = true;
const attackStart = performance.now();
const attackProbe = probeWhile(() => attacking);
const attackRes = await fetch(`${base}/batch/`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
  body: attack,
});
await attackRes.arrayBuffer();
const attackMs = performance.now() - attackStart;
attacking = false;
const attackHealth = await attackProbe;

console.log(`machine load before: ${loadBefore}; server RSS peak before load ${clientRss} MB`);
console.log(
  `largest accepted body: ${perRequest} events, ${largest.decoded} bytes decoded, ${largest.body.length} gzip`,
);
console.log(`/_health idle:                    ${summary(idle)}`);
console.log(`/_health, ${clients} clients at the limits: ${summary(underLoad)}`);
console.log(
  `  statuses ${JSON.stringify(Object.fromEntries(statuses))}, ${Math.round(accepted / elapsed)} events/s accepted`,
);
console.log(
  `300 000-event body (${attack.length} bytes gzip): ${attackRes.status} in ${attackMs.toFixed(0)} ms; /_health ${summary(attackHealth)}`,
);
const rssPeak = rssPeakMb();
console.log(`server RSS peak: ${rssPeak} MB`);

const report = reporter('capture-limits');
const sorted = (latencies: number[]) => [...latencies].sort((a, b) => a - b);
const loadedSorted = sorted(underLoad);
const loadedCase = `/_health while ${clients} clients send the largest accepted /batch/ bodies (${perRequest} events)`;
report({ case: '/_health idle', metric: 'p99', value: pct(sorted(idle), 0.99), unit: 'ms' });
report({ case: loadedCase, metric: 'p50', value: pct(loadedSorted, 0.5), unit: 'ms' });
report({
  case: loadedCase,
  metric: 'p99',
  value: pct(loadedSorted, 0.99),
  unit: 'ms',
  goal: { op: '<', value: 50, issue: 15 },
});
report({ case: loadedCase, metric: 'max', value: loadedSorted.at(-1) ?? 0, unit: 'ms' });
report({ case: loadedCase, metric: 'events/s accepted', value: accepted / elapsed, unit: 'events/s' });
const attackCase = `one 300 000-event /batch/ body (${attack.length} bytes gzip)`;
report({ case: attackCase, metric: 'HTTP status', value: attackRes.status, unit: 'status' });
report({ case: attackCase, metric: 'time to the answer', value: attackMs, unit: 'ms' });
report({
  case: attackCase,
  metric: '/_health p99 meanwhile',
  value: pct(sorted(attackHealth), 0.99),
  unit: 'ms',
});
report({ case: 'the server', metric: 'peak RSS', value: rssPeak, unit: 'MB' });

child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
rmSync(dir, { recursive: true, force: true });
