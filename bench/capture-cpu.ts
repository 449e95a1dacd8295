/**
 * The capture path's main-thread CPU per event, stage by stage, in this process: the same
 * posthog-node-shaped /batch/ bodies as bench/ingest.ts (100 events, gzip), for known persons (the
 * steady state: no metadata transaction). No HTTP and no engine: what is left is the JavaScript
 * each request costs the event loop, measured without the noise of a loaded machine (each stage
 * is timed over every body, best of --rounds). `JSON.parse` of the same bytes is printed beside
 * it as the framework floor for decoding.
 * Usage: npx tsx bench/capture-cpu.ts [--bodies 500] [--rounds 5]
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { decodeCaptureAsync } from '../src/capture/decode.js';
import { normalizeEvent } from '../src/capture/normalize.js';
import { enrichFromCache } from '../src/domain/ingest/cached-persons.js';
import { PersonCache } from '../src/domain/ingest/person-cache.js';
import type { PersonEnrichment } from '../src/domain/ingest/persons.js';
import { RecentUuids } from '../src/domain/ingest/recent-uuids.js';
import { type CaptureEvent, chTime, eventLine } from '../src/domain/ingest/rows.js';
import { joinInSlices, mapInSlices } from '../src/domain/slices.js';
import { table } from './lib.js';
import { sdkEvent } from './sdk-events.js';

const { values } = parseArgs({
  options: { bodies: { type: 'string', default: '500' }, rounds: { type: 'string', default: '5' } },
});
const BODIES = Number(values.bodies);
const ROUNDS = Number(values.rounds);
const BATCH = 100;
const bodies = Array.from({ length: BODIES }, (_, b) =>
  gzipSync(
    JSON.stringify({
      api_key: 'phc_bench',
      batch: Array.from({ length: BATCH }, (_, i) => sdkEvent(b * BATCH + i)),
      sent_at: new Date().toISOString(),
    }),
  ),
);
const total = BODIES * BATCH;
const cache = new PersonCache();
for (let i = 0; i < 10_000; i++) {
  cache.set(1, `user-${i}`, {
    id: randomUUID(),
    teamId: 1,
    properties: { email: `user-${i}@shop.test`, plan: 'pro' },
    isIdentified: true,
    createdAt: '2026-11-01T00:00:00.000Z',
    version: 1,
  } as never);
}
const input = (body: Buffer) => ({
  method: 'POST' as const,
  contentType: 'application/json',
  contentEncoding: 'gzip',
  query: {},
  body,
});

async function cpu(fn: () => Promise<void>): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < ROUNDS; r++) {
    const before = process.cpuUsage();
    await fn();
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / total);
  }
  return best;
}

const now = new Date();
const created = chTime(now.toISOString());
// A new set per round: the rounds send the same uuids, which a kept set would drop as retries.
let recent = new RecentUuids();

/**
 * One request's main-thread work up to `upTo` stages, as the route and the pipeline run it on a
 * freshly decoded body (normalising consumes the decoded objects, so stages are timed cumulatively
 * and each stage's cost is the difference to the one before).
 */
async function request(body: Buffer, upTo: number): Promise<void> {
  const d = await decodeCaptureAsync(input(body));
  if (upTo < 2) return;
  const context = { now, sentAt: d.sentAt, ip: '127.0.0.1', consume: true };
  const events: CaptureEvent[] = await mapInSlices(d.events, (raw) => normalizeEvent(raw, context));
  if (upTo < 3) return;
  const fresh = events.filter((e) => !recent.has(1, e.uuid));
  recent.remember(
    1,
    fresh.map((e) => e.uuid),
  );
  if (upTo < 4) return;
  const persons = enrichFromCache(cache, 1, fresh) as PersonEnrichment[];
  if (upTo < 5) return;
  await joinInSlices(fresh, (e, i) => eventLine(1, e, persons[i] as PersonEnrichment, created));
}

const STAGES = [
  'decode (gunzip, scan, limits, parse per event)',
  'normalise (uuid, timestamp, $set, $ip)',
  'recent uuids (has + remember)',
  'persons from the cache',
  'encode rows (eventLine, joinInSlices)',
];
const floor = await cpu(async () => {
  for (const b of bodies) JSON.parse(gunzipSync(b).toString());
});
const rows: Record<string, string>[] = [
  { stage: 'floor: gunzip + one JSON.parse of the body', 'CPU µs/event': floor.toFixed(2), cumulative: '' },
];
let before = 0;
for (let upTo = 1; upTo <= STAGES.length; upTo++) {
  const upToHere = await cpu(async () => {
    recent = new RecentUuids();
    for (const b of bodies) await request(b, upTo);
  });
  rows.push({
    stage: STAGES[upTo - 1] as string,
    'CPU µs/event': (upToHere - before).toFixed(2),
    cumulative: upToHere.toFixed(2),
  });
  before = upToHere;
}
console.log(`${BODIES} bodies of ${BATCH} events (known persons), best of ${ROUNDS} rounds\n`);
console.log(table(rows));
