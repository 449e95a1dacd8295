import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, ok, type RawEvent, uuid } from '../helpers/query-lists.js';
import { seededRandom } from '../helpers/random.js';

/**
 * Funnel step counts on seeded random event streams against ClickHouse's own `windowFunnel`, an
 * independent implementation of the same rule (a person counts for step k when some step-1 event
 * is followed, in order and within the window, by steps 2..k). The streams are mostly first-step
 * events, the shape where Burrow skips starts that cannot be a person's best path. (windowFunnel's
 * `strict_order` is a different rule from PostHog's strict funnels, so only ordered ones compare.)
 */
const NOW = new Date('2025-07-01T12:00:00.000Z');
const STEPS = ['a', 'b', 'c', 'd'];
let h: Harness;
let project: number;

function streams(seed: number, people: number): RawEvent[] {
  const next = seededRandom(seed);
  const names = ['a', 'a', 'a', 'a', 'b', 'b', 'c', 'd', 'x'];
  const out: RawEvent[] = [];
  for (let p = 0; p < people; p++) {
    // Distinct, increasing timestamps: 1 minute to 10 hours apart, from June 2nd to at most ~June 20th.
    let t = Date.parse('2025-06-02T00:00:00Z') + Math.floor(next() * 86_400_000);
    const count = 3 + Math.floor(next() * 30);
    for (let i = 0; i < count; i++) {
      t += 60_000 * (1 + Math.floor(next() * 600));
      const event = names[Math.floor(next() * names.length)] as string;
      out.push({ event, distinct_id: `s${seed}-${p}`, timestamp: new Date(t).toISOString(), uuid: uuid() });
    }
  }
  return out;
}

beforeAll(async () => {
  h = await startHarness({}, { now: () => NOW });
  project = h.boot.project_id;
  const events = [...streams(1, 120), ...streams(2, 120)];
  for (let i = 0; i < events.length; i += 1000) {
    await capture(h, h.boot.project_api_key, project, events.slice(i, i + 1000));
  }
});
afterAll(async () => h?.close());

async function engineCounts(windowSeconds: number): Promise<number[]> {
  const events = h.stores.events;
  const conds = STEPS.map((s) => `event = '${s}'`).join(', ');
  const levels = STEPS.map((_, k) => `countIf(level >= ${k + 1})`).join(', ');
  const { rows } = await events.queryRows(
    `SELECT ${levels} FROM (SELECT distinct_id, windowFunnel(${windowSeconds})(toDateTime(timestamp), ${conds}) AS level
       FROM ${events.table('events')} FINAL WHERE team_id = ${project} GROUP BY distinct_id)`,
  );
  return (rows[0] as number[]).map(Number);
}

async function burrowCounts(days: number): Promise<number[]> {
  const out = await ok(h, project, {
    kind: 'FunnelsQuery',
    series: STEPS.map((event) => ({ kind: 'EventsNode', event })),
    dateRange: { date_from: '2025-06-01', date_to: '2025-06-30' },
    funnelsFilter: { funnelWindowInterval: days, funnelWindowIntervalUnit: 'day' },
  });
  return (out.results as unknown as Array<{ count: number }>).map((s) => s.count);
}

describe('FunnelsQuery against windowFunnel', () => {
  it.each([1, 3, 14])('counts the same people per step with a %i-day window', async (days) => {
    const expected = await engineCounts(days * 86_400);
    expect(expected[0]).toBeGreaterThan(200);
    expect(expected[3]).toBeGreaterThan(0);
    expect(await burrowCounts(days)).toEqual(expected);
  });
});
