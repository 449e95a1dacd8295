/**
 * The engine's CPU per row for an insert into `events` (materialized columns and the `sessions`
 * view included) by rows per insert, in this process: what the capture journal's writer pays per
 * insert whatever its size, and so why it waits for a batch (CAPTURE_JOURNAL_INSERT_DELAY_MS).
 * Rows are encoded by `eventLine`, as capture encodes them; each size inserts the same rows into a
 * fresh database, after a one-row warm-up insert, then idles 3 s to count the merges that follow.
 * Usage: npx tsx bench/engine-insert-size.ts [--rows 100000] [--sizes 1,1000,4000,20000]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { PersonEnrichment } from '../src/domain/ingest/persons.js';
import { eventLine, NO_GROUPS } from '../src/domain/ingest/rows.js';
import { openEventsStore } from '../src/store/events/store.js';
import { table } from './lib.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    sizes: { type: 'string', default: '1,1000,4000,20000' },
  },
});
const ROWS = Number(values.rows);
const BROWSERS = ['Chrome', 'Firefox', 'Safari', 'Edge'];
const now = '2026-11-27 10:00:00.000000';
const persons: PersonEnrichment[] = Array.from({ length: 10_000 }, (_, i) => ({
  personId: randomUUID(),
  personProperties: { email: `user-${i}@shop.test`, plan: 'pro' },
  personCreatedAt: '2026-11-01T00:00:00.000Z',
  groups: NO_GROUPS,
}));
const line = (i: number) =>
  eventLine(
    1,
    {
      uuid: randomUUID(),
      event: i % 50 === 0 ? '$pageview' : `event ${i % 50}`,
      distinctId: `user-${(i * 7919) % 10_000}`,
      timestamp: new Date(Date.now() - (i % 86_400) * 1000).toISOString(),
      properties: {
        $lib: 'posthog-node',
        $browser: BROWSERS[i % 4],
        $current_url: `https://shop.test/products/${i % 500}`,
        $session_id: `s-${Math.floor(i / 20)}`,
        plan: i % 3 === 0 ? 'pro' : 'free',
        amount: i % 100,
        $ip: '127.0.0.1',
      },
    },
    persons[(i * 7919) % 10_000] as PersonEnrichment,
    now,
  );
const lines = Array.from({ length: ROWS }, (_, i) => line(i));
const dir = mkdtempSync(join(tmpdir(), 'burrow-bench-insert-size-'));
const rows: Record<string, string | number>[] = [];
for (const size of String(values.sizes).split(',').map(Number)) {
  const store = await openEventsStore({ dataDir: dir, database: `size_${size}` });
  await store.insertEncoded('events', Buffer.from(lines[0] as string));
  // A one-row insert is timed over 200 rows: it is the fixed cost alone.
  const count = size === 1 ? 200 : ROWS;
  const bodies: Buffer[] = [];
  for (let i = 0; i < count; i += size) bodies.push(Buffer.from(lines.slice(i, i + size).join('')));
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const body of bodies) await store.insertEncoded('events', body);
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  const idle = process.cpuUsage();
  await new Promise((r) => setTimeout(r, 3000));
  const after = process.cpuUsage(idle);
  rows.push({
    'rows per insert': size,
    inserts: bodies.length,
    'CPU ms per insert': ((used.user + used.system) / 1000 / bodies.length).toFixed(1),
    'CPU µs per row': ((used.user + used.system) / count).toFixed(1),
    'rows/s': Math.round(count / seconds),
    'merges in the next 3 s, CPU µs per row': ((after.user + after.system) / count).toFixed(1),
  });
  await store.close();
}
rmSync(dir, { recursive: true, force: true });
console.log(`${ROWS} events rows, inserted ${String(values.sizes)} at a time\n`);
console.log(table(rows));
