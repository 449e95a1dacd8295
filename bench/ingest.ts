/**
 * Capture throughput: posthog-node-shaped /batch/ requests (100 events, gzip) from this process
 * against the built server in another, versus the engine's own insert of the rows Burrow stored,
 * measured in the same run (the ratio is the figure issue 22 sets a goal for: ≥ 0.6).
 * Usage: npm run build && npm run bench:ingest [-- --events 200000 --concurrency 16 --warmup 30000]
 * BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles the server; BENCH_SERVER=<dist/main.js>
 * runs another build (before/after comparisons in one sitting).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { createDefinitionsCollector } from '../src/domain/definitions/collector.js';
import { openEventsStore } from '../src/store/events/store.js';
import { openMetaStore } from '../src/store/meta/db.js';
import { CHILD_STDIO, median, reporter, table } from './lib.js';
import { procCpuSeconds, sdkEvent, untilReady } from './sdk-events.js';

const ROOT = join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '200000' },
    concurrency: { type: 'string', default: '16' },
    // `http`: node:http with keep-alive, about a tenth of fetch's CPU per request. The clients stand
    // for SDKs on other machines, but here they share the 2 cores with the server, so the lighter
    // the generator, the closer events/s comes to what the server alone can do. `fetch` is what
    // session 6 and earlier measured with.
    client: { type: 'string', default: 'http' },
    // Events sent before the clock starts, from other distinct ids: the server compiles its hot
    // paths (V8's optimising compiler ran on helper threads through the first seconds of a cold
    // run) as a running server already has. Their rows are left out of the floor.
    warmup: { type: 'string', default: '30000' },
    // Distinct ids the events come from (one new person each): `--persons` equal to `--events`
    // makes every event create a person, the cost the first tenth of the default run is made of.
    persons: { type: 'string', default: '10000' },
    // Share of the events sent as `$exception` (issue 33: throughput unchanged at 0.01): each one a
    // node stack of 10 frames, from 20 distinct errors (so 20 issues), grouped at capture.
    exceptions: { type: 'string', default: '0' },
  },
});
if (values.client !== 'http' && values.client !== 'fetch') throw new Error('--client is http or fetch');
const total = Number(values.events);
const concurrency = Number(values.concurrency);
const BATCH = 100;
const loadBefore = loadavg()[0]?.toFixed(2);
const persons = Number(values.persons);
const exceptionShare = Number(values.exceptions);
const exceptionEvery = exceptionShare > 0 ? Math.round(1 / exceptionShare) : 0;
/** An exception event in place of the i-th sample, as posthog-node's captureException sends it. */
function asException(e: ReturnType<typeof sdkEvent>, i: number) {
  const kind = i % 20;
  const frames = Array.from({ length: 10 }, (_, f) => ({
    platform: 'node:javascript',
    function: `handler${kind}_${f}`,
    filename: f < 3 ? `/srv/node_modules/lib${f}/index.js` : `/srv/app/route${kind}.js`,
    lineno: 10 + f,
    colno: 5,
    in_app: f >= 3,
  }));
  return {
    ...e,
    event: '$exception',
    properties: {
      ...(e.properties as object),
      $exception_list: [
        {
          type: `Error${kind}`,
          value: `request ${i} failed`,
          mechanism: { handled: true, type: 'generic' },
          stacktrace: { type: 'raw', frames },
        },
      ],
    },
  };
}
const samples = Array.from({ length: total }, (_, i) => {
  const e = sdkEvent(i, persons);
  return exceptionEvery > 0 && i % exceptionEvery === exceptionEvery - 1 ? asException(e, i) : e;
});
const WARM_PREFIX = 'warmup-';
const warmSamples = Array.from({ length: Number(values.warmup) }, (_, i) => ({
  ...sdkEvent(i),
  distinct_id: `${WARM_PREFIX}${i % 1000}`,
}));
const server = mkdtempSync(join(tmpdir(), 'burrow-bench-ingest-'));
const port = 18_000 + Math.floor(Math.random() * 1000);
const nodeArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [];
// BENCH_SERVER=<path to another build's dist/main.js> runs the same load against it (before/after).
const serverScript = process.env.BENCH_SERVER ?? join(ROOT, 'dist/main.js');
const startServer = (env: Record<string, string> = {}) =>
  spawn(process.execPath, [...nodeArgs, serverScript], {
    env: { ...process.env, BURROW_DATA_DIR: server, PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: CHILD_STDIO,
  });
/** Stops the server; resolves with its exit code (1 when its shutdown timed out). */
const stopServer = (proc: ReturnType<typeof startServer>) =>
  new Promise<number | null>((resolve) => {
    proc.once('exit', (code) => resolve(code));
    proc.kill('SIGTERM');
  });
const child = startServer();
await untilReady(port);
const token = JSON.parse(readFileSync(join(server, 'bootstrap.json'), 'utf8')).project_api_key as string;
const bodiesOf = (events: object[]) => {
  const out: Buffer[] = [];
  for (let i = 0; i < events.length; i += BATCH) {
    out.push(
      gzipSync(
        JSON.stringify({
          api_key: token,
          batch: events.slice(i, i + BATCH),
          sent_at: new Date().toISOString(),
        }),
      ),
    );
  }
  return out;
};
const bodies = bodiesOf(samples);
const warmBodies = bodiesOf(warmSamples);

/** Machine-wide busy and total jiffies (every core), from /proc/stat. */
function machineCpu(): { busy: number; total: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}
/** CPU seconds (user + system, every thread) the server process has used so far. */
function serverCpu(): number {
  return procCpuSeconds(`/proc/${child.pid}/stat`);
}
/** The server's main thread alone (JavaScript, and the engine calls made on it). */
function serverMainCpu(): number {
  return procCpuSeconds(`/proc/${child.pid}/task/${child.pid}/stat`);
}
/** The server's CPU seconds so far by thread name (digits dropped: `ThreadPool12` → `ThreadPool`). */
function serverThreads(): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${child.pid}/task`)) {
    try {
      const comm = readFileSync(`/proc/${child.pid}/task/${tid}/comm`, 'utf8').trim();
      const name = tid === String(child.pid) ? 'main thread' : comm.replace(/[0-9]+/g, '');
      byName.set(name, (byName.get(name) ?? 0) + procCpuSeconds(`/proc/${child.pid}/task/${tid}/stat`));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return byName;
}
let peakRss = 0;
const rssTimer = setInterval(() => {
  const m = readFileSync(`/proc/${child.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  peakRss = Math.max(peakRss, Number(m?.[1] ?? 0) / 1024);
}, 100);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
/** One capture request; resolves with the status once the answer is read. */
function post(body: Buffer): Promise<number> {
  if (values.client === 'fetch') {
    return fetch(`http://127.0.0.1:${port}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body,
    }).then(async (res) => {
      await res.arrayBuffer();
      return res.status;
    });
  }
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/batch/',
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          'content-length': body.length,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
/**
 * Sends every body with `concurrency` requests in flight; `sent` sees each request go out,
 * `each` each answer.
 */
async function send(
  list: Buffer[],
  each: (index: number, status: number, ms: number) => void,
  sent: (index: number) => void = () => {},
) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < list.length) {
        const index = next++;
        sent(index);
        const t = performance.now();
        const status = await post(list[index] as Buffer);
        each(index, status, performance.now() - t);
      }
    }),
  );
}
let warmFailed = 0;
await send(warmBodies, (_i, status) => {
  if (status !== 200) warmFailed++;
});
if (warmFailed > 0) throw new Error(`${warmFailed} warm-up requests failed`);
// The warm-up's rows reach the engine before the clock: nobody reads, so the journal's writer
// waits its idle delay (CAPTURE_JOURNAL_IDLE_INSERT_DELAY_MS, 1 s) before inserting them.
await new Promise((r) => setTimeout(r, 2000));
const latencies: number[] = [];
// Requests sent after the first tenth of the bodies: past the burst that creates the 10k persons,
// whose waits for person writes dominate the whole run's tail at high concurrency.
const steadyLatencies: number[] = [];
const tenth = Math.ceil(bodies.length / 10);
let failed = 0;
/** When the first request after the first tenth was sent: the steady state's clock starts. */
let steadyStarted = 0;
const started = performance.now();
const cpuBefore = serverCpu();
const mainCpuBefore = serverMainCpu();
const threadsBefore = serverThreads();
const machineBefore = machineCpu();
const benchCpuBefore = process.cpuUsage();
await send(
  bodies,
  (index, status, ms) => {
    latencies.push(ms);
    if (index >= tenth) steadyLatencies.push(ms);
    if (status !== 200) failed++;
  },
  (index) => {
    if (index === tenth) steadyStarted = performance.now();
  },
);
const ended = performance.now();
const seconds = (ended - started) / 1000;
const steadyEvents = (bodies.length - tenth) * BATCH;
const steadyRate = steadyEvents / ((ended - steadyStarted) / 1000);
const cpuSeconds = serverCpu() - cpuBefore;
const mainCpuSeconds = serverMainCpu() - mainCpuBefore;
const threadsAfter = serverThreads();
const machineAfter = machineCpu();
const machineBusy = (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total);
const benchCpu = process.cpuUsage(benchCpuBefore);
const benchMicros = (benchCpu.user + benchCpu.system) / total;
clearInterval(rssTimer);
agent.destroy();
// Every answered event is in the capture journal; a shutdown that times out (SHUTDOWN_TIMEOUT_MS)
// leaves the rows not yet inserted there, for the next start. Reading the engine's files before
// that start read 84,900 of 100,000 rows once: a start on the same data replays the journal first.
const exitCode = await stopServer(child);
if (exitCode !== 0) {
  console.error(
    `server exited with ${exitCode} (shutdown timed out?): restarting it to replay its capture journal`,
  );
  // The replay is done before it serves; its own stop has time to finish.
  const again = startServer({ SHUTDOWN_TIMEOUT_MS: '120000' });
  await untilReady(port);
  const code = await stopServer(again);
  if (code !== 0) throw new Error(`the restarted server exited with ${code}`);
}

// The engine floor: the engine's own `INSERT … FORMAT JSONEachRow` of the rows Burrow stored (the
// same person ids and properties), read back from the server's data and inserted into a fresh
// `events` table of the same schema (materialized columns, the `sessions` view) in another
// database on the same chDB path, in inserts of at most INGEST_BATCH_ROWS (the most one group
// commit writes). Same process for both: one chDB path per process.
const store = await openEventsStore({ dataDir: server, database: 'burrow' });
const MEASURED = `NOT startsWith(distinct_id, '${WARM_PREFIX}')`;
const stored = (
  await store.query<{ line: string }>(
    `SELECT formatRowNoNewline('JSONEachRow', *) AS line FROM burrow.events WHERE ${MEASURED}`,
    { maxResultBytes: 0 }, // every stored row, read back whole (QUERY_MAX_RESULT_BYTES is for answers)
  )
).map((r) => `${r.line}\n`);
const storedPersons = (
  await store.query<{ n: number }>(`SELECT uniqExact(person_id) AS n FROM burrow.events WHERE ${MEASURED}`)
)[0]?.n;
await store.close();
// Every answered event must be stored: fewer is a loss, not a measurement.
if (failed === 0 && stored.length !== total) {
  throw new Error(`${stored.length} rows stored of ${total} answered with 200`);
}
const chunkRows = Number(process.env.INGEST_BATCH_ROWS ?? 20_000);
const chunks: Buffer[] = [];
for (let i = 0; i < stored.length; i += chunkRows)
  chunks.push(Buffer.from(stored.slice(i, i + chunkRows).join('')));
// Three passes, each into a fresh database, and the median pass is the floor: one pass moved by
// ±10% from run to run on this machine, as much as the capture figure it divides.
const FLOOR_PASSES = 3;
const passes: Array<{ seconds: number; cpuSeconds: number }> = [];
for (let pass = 0; pass < FLOOR_PASSES; pass++) {
  const floor = await openEventsStore({ dataDir: server, database: `burrow_floor_${pass}` });
  // One row first: the first insert of a process pays the engine's warm-up.
  await floor.insertEncoded('events', Buffer.from(stored[0] ?? ''));
  const rawStart = performance.now();
  const rawCpuBefore = process.cpuUsage();
  for (const chunk of chunks) await floor.insertEncoded('events', chunk);
  const seconds = (performance.now() - rawStart) / 1000;
  const rawCpu = process.cpuUsage(rawCpuBefore);
  passes.push({ seconds, cpuSeconds: (rawCpu.user + rawCpu.system) / 1e6 });
  await floor.close();
}
passes.sort((a, b) => a.seconds - b.seconds);
const { seconds: rawSeconds, cpuSeconds: rawCpuSeconds } = passes[Math.floor(FLOOR_PASSES / 2)] as {
  seconds: number;
  cpuSeconds: number;
};
const floorRates = passes.map((p) => Math.round(stored.length / p.seconds));
rmSync(server, { recursive: true, force: true });

// Definitions collected at ingestion: the capture path calls `observe` once per request (the
// only per-event cost); `flush` writes what was new, on a timer. Both measured here in-process on
// the same events, against the server's CPU per event above.
const metaDir = mkdtempSync(join(tmpdir(), 'burrow-bench-defs-'));
const meta = await openMetaStore({ dataDir: metaDir });
const collector = createDefinitionsCollector(meta.db);
const defsCpuBefore = process.cpuUsage();
const batches = samples.map((e) => ({ event: e.event as string, properties: e.properties }));
for (let i = 0; i < batches.length; i += BATCH) collector.observe(1, batches.slice(i, i + BATCH));
const observeCpu = process.cpuUsage(defsCpuBefore);
const observeSeconds = (observeCpu.user + observeCpu.system) / 1e6;
const pendingDefinitions = collector.pending();
await meta.close();
rmSync(metaDir, { recursive: true, force: true });

latencies.sort((a, b) => a - b);
steadyLatencies.sort((a, b) => a - b);
const rate = total / seconds;
const rawRate = stored.length / rawSeconds;
console.log(
  `${total} events in batches of ${BATCH}, ${concurrency} requests in flight, ${persons} distinct ids, ` +
    `after ${warmSamples.length} warm-up events from 1k others; ` +
    `${stored.length} rows stored, ${storedPersons} persons; load generator: ${values.client}` +
    (exceptionEvery > 0 ? `; 1 event in ${exceptionEvery} an $exception` : ''),
);
console.log(`load average before ${loadBefore}, after ${loadavg()[0]?.toFixed(2)}`);
// Whether the cores were the bound: the load generator shares them with the server.
console.log(
  `during the load: machine ${(machineBusy * 100).toFixed(0)}% busy (all cores), ` +
    `load generator ${benchMicros.toFixed(1)} CPU µs/event, ` +
    `server main thread ${((mainCpuSeconds / total) * 1e6).toFixed(1)} of its ${((cpuSeconds / total) * 1e6).toFixed(1)} CPU µs/event\n`,
);
console.log(`ratio vs the engine's own insert: ${(rate / rawRate).toFixed(2)} (goal ≥ 0.6)`);
// The first tenth creates the 10 000 persons (one new person per 20 events); after it, every
// sender is known, as most of an established project's traffic is.
console.log(
  `after the first tenth: ${Math.round(steadyRate)} events/s, ratio ${(steadyRate / rawRate).toFixed(2)}\n`,
);
console.log(
  table([
    {
      path: 'POST /batch/ (gzip) through Burrow',
      'events/s': Math.round(rate),
      'p50 ms': median(latencies),
      'p99 ms': latencies[Math.floor(latencies.length * 0.99)] ?? 0,
      'p99 ms after the first tenth': steadyLatencies[Math.floor(steadyLatencies.length * 0.99)] ?? 0,
      'ratio vs engine': rate / rawRate,
      // Less sensitive than events/s to other processes on the machine: CPU spent per event.
      'CPU µs/event': Math.round((cpuSeconds / total) * 1e6),
      'CPU ratio': rawCpuSeconds / cpuSeconds,
      'peak RSS MB': Math.round(peakRss),
      failed,
    },
    {
      path: `engine floor: INSERT … FORMAT JSONEachRow of the stored rows (${chunkRows} per insert; median of ${floorRates.join(', ')} rows/s)`,
      'events/s': Math.round(rawRate),
      'p50 ms': '',
      'p99 ms': '',
      'p99 ms after the first tenth': '',
      'ratio vs engine': 1,
      'CPU µs/event': Math.round((rawCpuSeconds / stored.length) * 1e6),
      'CPU ratio': 1,
      'peak RSS MB': '',
      failed: 0,
    },
  ]),
);
// Threads that ended during the load are missing here (their CPU is in the process total).
const threads = [...threadsAfter]
  .map(([name, after]) => [name, ((after - (threadsBefore.get(name) ?? 0)) / total) * 1e6] as const)
  .filter(([, micros]) => micros >= 0.05)
  .sort((a, b) => b[1] - a[1]);
console.log(
  `\nserver CPU µs/event by thread: ${threads.map(([name, micros]) => `${name} ${micros.toFixed(1)}`).join(', ')}`,
);
const observeMicros = (observeSeconds / total) * 1e6;
console.log(
  `\ndefinitions at ingestion: observe ${observeMicros.toFixed(3)} CPU µs/event ` +
    `(${((observeMicros / ((cpuSeconds / total) * 1e6)) * 100).toFixed(2)}% of the server's CPU per event), ` +
    `${pendingDefinitions} definitions to write in one flush`,
);

const report = reporter('ingest');
const what =
  `POST /batch/ (gzip), ${total} events from ${persons} distinct ids, ${concurrency} in flight` +
  (exceptionEvery > 0 ? `, ${(exceptionShare * 100).toFixed(1)}% exceptions` : '');
const engine = "the engine's own insert of the same rows";
report({
  case: what,
  metric: 'events/s',
  value: rate,
  unit: 'events/s',
  ratio: rate / rawRate,
  against: engine,
  goal: { op: '>=', value: 0.6, issue: 22, on: 'ratio' },
});
report({
  case: what,
  metric: 'events/s after the first tenth',
  value: steadyRate,
  unit: 'events/s',
  ratio: steadyRate / rawRate,
  against: engine,
});
report({ case: what, metric: 'p50', value: median(latencies), unit: 'ms' });
report({ case: what, metric: 'p99', value: latencies[Math.floor(latencies.length * 0.99)] ?? 0, unit: 'ms' });
report({
  case: what,
  metric: 'server CPU per event',
  value: (cpuSeconds / total) * 1e6,
  unit: 'µs',
  ratio: cpuSeconds / total / (rawCpuSeconds / stored.length),
  against: engine,
});
report({ case: what, metric: 'peak RSS', value: peakRss, unit: 'MB' });
report({ case: engine, metric: 'rows/s', value: rawRate, unit: 'rows/s' });
report({
  case: 'definitions at ingestion (observe)',
  metric: 'share of the server CPU per event',
  value: (observeMicros / ((cpuSeconds / total) * 1e6)) * 100,
  unit: '%',
  goal: { op: '<=', value: 5, issue: 17 },
});
