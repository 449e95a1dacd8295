/**
 * Realtime destinations' cost to capture: capture throughput with no destination, then with 10
 * enabled webhook destinations (to a loopback sink in this process), in one run on one server;
 * then the median time from a capture request's start to each delivery's arrival at the sink.
 * In the throughput phase every event is matched against the 10 destinations' filters and 1 in
 * 100 is delivered (all of them would queue more than a 2-core machine sends in the phase); the
 * latency phase sends 10 single-event requests a second, each delivered by all 10.
 * Usage: npx tsx bench/destinations.ts [-- --seconds 8 --clients 8 --json]
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { CHILD_STDIO, reporter, table } from './lib.js';
import { untilReady } from './sdk-events.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    clients: { type: 'string', default: '8' },
    batch: { type: 'string', default: '100' },
    // 1 in this many events is delivered by each destination (0: none, matching only).
    every: { type: 'string', default: '100' },
    // Writes the server's CPU profile (.cpuprofile) into this directory.
    profile: { type: 'string' },
  },
});
const SECONDS = Number(values.seconds);
const CLIENTS = Number(values.clients);
const BATCH = Number(values.batch);
const EVERY = Number(values.every) || 1_000_000_000;
const ROOT = join(import.meta.dirname, '..');
const ADMIN_KEY = 'phx_benchdestinations0123456789abcd';

// The destinations' sink, in its own thread so that answering thousands of deliveries a second
// does not hold this thread's event loop, which runs the load generator: the load generator
// must measure the server, not wait behind the sink. It counts deliveries and keeps each one's
// time from the capture start it carries.
const counterBuffer = new SharedArrayBuffer(4);
const sinkThread = new Worker(
  `const { parentPort, workerData } = require('node:worker_threads');
  const { createServer } = require('node:http');
  const counter = new Int32Array(workerData.counter);
  let latencies = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      Atomics.add(counter, 0, 1);
      const sent = Number(JSON.parse(Buffer.concat(chunks).toString('utf8')).sent);
      if (sent > 0) latencies.push(Date.now() - sent);
      res.end('ok');
    });
  });
  server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
  parentPort.on('message', (m) => {
    if (m === 'latencies') { parentPort.postMessage({ latencies }); latencies = []; }
    if (m === 'close') server.close(() => process.exit(0));
  });`,
  { eval: true, workerData: { counter: counterBuffer } },
);
const sinkCounter = new Int32Array(counterBuffer);
const sinkMessage = <T>(ask?: string) =>
  new Promise<T>((resolve) => {
    sinkThread.once('message', resolve);
    if (ask) sinkThread.postMessage(ask);
  });
const delivered = () => Atomics.load(sinkCounter, 0);
const takeLatencies = async () => (await sinkMessage<{ latencies: number[] }>('latencies')).latencies;
const sinkUrl = `http://127.0.0.1:${(await sinkMessage<{ port: number }>()).port}/`;
const dir = mkdtempSync(join(tmpdir(), 'burrow-bench-destinations-'));
const port = 19_000 + Math.floor(Math.random() * 1000);
const profileArgs = values.profile ? ['--cpu-prof', `--cpu-prof-dir=${values.profile}`] : [];
const child = spawn(process.execPath, [...profileArgs, '--import', 'tsx', join(ROOT, 'src/main.ts')], {
  cwd: ROOT,
  env: {
    ...process.env,
    BURROW_DATA_DIR: dir,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    BURROW_ADMIN_API_KEY: ADMIN_KEY,
    BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS: 'true',
    DESTINATIONS_POLL_MS: '100',
  },
  stdio: CHILD_STDIO,
});
await untilReady(port);
if (!process.argv.includes('--json')) console.log(`server pid ${child.pid}`);
const base = `http://127.0.0.1:${port}`;
const boot = JSON.parse(readFileSync(join(dir, 'bootstrap.json'), 'utf8'));

/** A process's or thread's CPU time so far (user + system) from its `stat` file, in µs. */
function cpuUsOf(statPath: string): number {
  const fields = readFileSync(statPath, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}
/** The server's CPU time so far (user + system), in µs: a figure a loaded machine disturbs less. */
const serverCpuUs = () => cpuUsOf(`/proc/${child.pid}/stat`);
/** The server's main thread's share of it (JavaScript's event loop; the rest is the engine's and libuv's threads). */
const mainThreadCpuUs = () => cpuUsOf(`/proc/${child.pid}/task/${child.pid}/stat`);

/** Events sent with `deliver: true` (each is owed one delivery per destination). */
let toDeliver = 0;
let cpuPerEvent = 0;
let mainCpuPerEvent = 0;
async function capturePhase(deliverEvery: number): Promise<number> {
  let events = 0;
  const cpuBefore = serverCpuUs();
  const mainBefore = mainThreadCpuUs();
  const end = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      while (performance.now() < end) {
        const batch = Array.from({ length: BATCH }, (_, i) => ({
          event: 'bench',
          distinct_id: `user-${c}-${i % 20}`,
          uuid: randomUUID(),
          properties: { deliver: (events + i) % deliverEvery === 0, sent: Date.now(), $current_url: '/x' },
        }));
        const res = await fetch(`${base}/batch/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: boot.project_api_key, batch }),
        });
        await res.arrayBuffer();
        if (res.status === 200) {
          events += BATCH;
          toDeliver += batch.filter((e) => e.properties.deliver).length;
        }
      }
    }),
  );
  cpuPerEvent = (serverCpuUs() - cpuBefore) / Math.max(1, events);
  mainCpuPerEvent = (mainThreadCpuUs() - mainBefore) / Math.max(1, events);
  return events / SECONDS;
}

// Warm-up, then capture with no destination.
await capturePhase(1_000_000_000);
const none = await capturePhase(1_000_000_000);
const cpuNone = cpuPerEvent;
const mainNone = mainCpuPerEvent;
for (let i = 0; i < 10; i++) {
  const res = await fetch(`${base}/api/projects/${boot.project_id}/hog_functions/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      template_id: 'template-webhook',
      enabled: true,
      name: `bench ${i}`,
      inputs: { url: { value: sinkUrl }, body: { value: { sent: '{event.properties.sent}' } } },
      filters: {
        events: [{ id: 'bench', type: 'events' }],
        properties: [{ key: 'deliver', value: ['true'], operator: 'exact', type: 'event' }],
      },
    }),
  });
  if (res.status !== 201)
    throw new Error(`creating a destination answered ${res.status}: ${await res.text()}`);
}
toDeliver = 0;
const deliveredBefore = delivered();
const ten = await capturePhase(EVERY);
const cpuTen = cpuPerEvent;
const mainTen = mainCpuPerEvent;
const owed = toDeliver * 10;
const inPhase = delivered() - deliveredBefore;
// Let the throughput phase's deliveries drain before timing single events: how long that takes
// says whether delivery kept up or fell behind.
const phaseEnd = Date.now();
while (Date.now() - phaseEnd < 120_000 && delivered() - deliveredBefore < owed)
  await new Promise((r) => setTimeout(r, 100));
const drainMs = Date.now() - phaseEnd;
const drained = delivered() - deliveredBefore;
await takeLatencies();
const latencies: number[] = [];
const sentLatency = Date.now();
for (let i = 0; i < 50; i++) {
  const res = await fetch(`${base}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      api_key: boot.project_api_key,
      batch: [
        {
          event: 'bench',
          distinct_id: 'lat',
          uuid: randomUUID(),
          properties: { deliver: true, sent: Date.now() },
        },
      ],
    }),
  });
  await res.arrayBuffer();
  await new Promise((r) => setTimeout(r, 100));
}
while (latencies.length < 500 && Date.now() - sentLatency < 60_000) {
  await new Promise((r) => setTimeout(r, 200));
  latencies.push(...(await takeLatencies()));
}
const sorted = [...latencies].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
const p99 = sorted[Math.floor(sorted.length * 0.99)] ?? Number.NaN;

console.log(
  table([
    { case: 'no destination', 'events/s': Math.round(none) },
    { case: '10 enabled destinations (1 % of events delivered)', 'events/s': Math.round(ten) },
  ]),
);
console.log(
  `server CPU per event: ${cpuNone.toFixed(1)} µs with no destination, ${cpuTen.toFixed(1)} µs with 10 (${(cpuNone / cpuTen).toFixed(2)} as a throughput ratio); the phase with destinations includes its deliveries`,
);
console.log(
  `of which the main thread (the event loop): ${mainNone.toFixed(1)} µs with no destination, ${mainTen.toFixed(1)} µs with 10`,
);
console.log(
  `deliveries owed by the phase with destinations: ${owed}; ${inPhase} arrived during it, ${drained} within ${(drainMs / 1000).toFixed(1)} s after it`,
);
console.log(
  `ratio ${(ten / none).toFixed(2)}; capture-to-delivery over ${sorted.length} deliveries: median ${median} ms, p99 ${p99} ms`,
);
const report = reporter('destinations');
report({
  case: 'capture with 10 enabled destinations',
  metric: 'events/s',
  value: ten,
  unit: 'events/s',
  ratio: ten / none,
  against: 'capture with no destination, same run',
  goal: { op: '>=', value: 0.9, issue: 38, on: 'ratio' },
});
report({ case: 'capture with no destination', metric: 'events/s', value: none, unit: 'events/s' });
report({
  case: 'capture with 10 enabled destinations',
  metric: 'server CPU per event',
  value: cpuTen,
  unit: 'µs',
  ratio: cpuNone / cpuTen,
  against: 'server CPU per event with no destination, same run',
});
report({
  case: 'capture to delivery, 10 destinations',
  metric: 'median',
  value: median,
  unit: 'ms',
  goal: { op: '<', value: 1000, issue: 38 },
});
report({ case: 'capture to delivery, 10 destinations', metric: 'p99', value: p99, unit: 'ms' });
report({
  case: 'deliveries of the throughput phase',
  metric: 'delivered within the phase',
  value: inPhase / Math.max(1, owed),
  unit: 'share',
});
report({ case: 'deliveries of the throughput phase', metric: 'drained after', value: drainMs, unit: 'ms' });

child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
sinkThread.postMessage('close');
await new Promise((r) => sinkThread.once('exit', r));
rmSync(dir, { recursive: true, force: true });
