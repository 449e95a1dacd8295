/**
 * A trickle of capture: what the server's CPU costs while a few events a second arrive, for each
 * journal insert delay, side by side in one run. Each insert into `events` costs the engine ~25 ms
 * of CPU whatever its size, so the delay decides how often that cost is paid when events come one
 * by one. Nobody reads during the trickle, so the delay that applies is the idle one
 * (CAPTURE_JOURNAL_IDLE_INSERT_DELAY_MS); each run sets both delays to the value measured.
 * Usage: npm run build && npx tsx bench/ingest-trickle.ts [-- --rate 50 --seconds 10 --delays 10,200,1000]
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { table } from './lib.js';
import { procCpuSeconds, untilReady } from './sdk-events.js';

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '10' },
    delays: { type: 'string', default: '10,200,1000' },
  },
});
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const ROOT = join(import.meta.dirname, '..');

async function run(delayMs: number) {
  const dir = mkdtempSync(join(tmpdir(), 'burrow-bench-trickle-'));
  const port = 19_000 + Math.floor(Math.random() * 1000);
  const child = spawn(process.execPath, [join(ROOT, 'dist/main.js')], {
    env: {
      ...process.env,
      BURROW_DATA_DIR: dir,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      CAPTURE_JOURNAL_INSERT_DELAY_MS: String(delayMs),
      CAPTURE_JOURNAL_IDLE_INSERT_DELAY_MS: String(delayMs),
    },
    stdio: 'inherit',
  });
  const pid = child.pid as number;
  await untilReady(port);
  const token = JSON.parse(readFileSync(join(dir, 'bootstrap.json'), 'utf8')).project_api_key as string;
  // Settle after start (migrations, the first insert's warm-up) before measuring.
  await new Promise((r) => setTimeout(r, 2000));
  const before = procCpuSeconds(`/proc/${pid}/stat`);
  const started = performance.now();
  let sent = 0;
  while (performance.now() - started < SECONDS * 1000) {
    const res = await fetch(`http://127.0.0.1:${port}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: token,
        batch: [{ event: 'tick', distinct_id: `user-${sent % 100}`, uuid: randomUUID(), properties: {} }],
      }),
    });
    await res.arrayBuffer();
    sent++;
    // Open loop: the next event at its time, whatever this one took.
    const due = started + (sent * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  const seconds = (performance.now() - started) / 1000;
  const used = procCpuSeconds(`/proc/${pid}/stat`) - before;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
  return {
    'insert delay ms (both settings)': delayMs,
    'events/s': Math.round(sent / seconds),
    'server CPU, % of one core': ((used / seconds) * 100).toFixed(1),
    'CPU ms per event': ((used / sent) * 1000).toFixed(2),
  };
}

const rows = [];
for (const delay of String(values.delays).split(',').map(Number)) rows.push(await run(delay));
console.log(`${RATE} single-event requests a second for ${SECONDS} s, per delay\n`);
console.log(table(rows));
