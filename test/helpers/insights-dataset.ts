import type { Harness } from './harness.js';
import { capture, ok, query, type RawEvent, uuid } from './query-lists.js';

/**
 * The fixed trends dataset, modelled on PostHog's trends tests: four persons with `$pageview` and
 * `$pageleave` between 2020-01-09 and 2020-01-19, all at 12:00 UTC except p1's second pageview on
 * the 12th (13:00). Sent in time order, so each person is created at its first event.
 *
 * | person | $browser | prop | tier   | $pageview days           | $pageleave days          |
 * | p1     | Chrome   | 10   | gold   | 11 12 12 13 15 17 19     | 11 12 13 15 17 19        |
 * | p2     | Firefox  | 20   | silver | 09 12 13 15 17 19        | 13                       |
 * | p3     | Edge     | 30   | gold   | 12                       | 13                       |
 * | p4     | Safari   | 40   | -      | 15                       | 16                       |
 *
 * `$session_id` is `<person>-<day>`, except p1's pageleave on the 12th (`p1-12b`).
 */
export const DATASET_NOW = new Date('2020-01-20T10:00:00Z');

const PERSONS = {
  p1: {
    $browser: 'Chrome',
    prop: 10,
    tier: 'gold',
    views: ['11', '12', '12T13', '13', '15', '17', '19'],
    leaves: ['11', '12', '13', '15', '17', '19'],
  },
  p2: {
    $browser: 'Firefox',
    prop: 20,
    tier: 'silver',
    views: ['09', '12', '13', '15', '17', '19'],
    leaves: ['13'],
  },
  p3: { $browser: 'Edge', prop: 30, tier: 'gold', views: ['12'], leaves: ['13'] },
  p4: { $browser: 'Safari', prop: 40, tier: null, views: ['15'], leaves: ['16'] },
} as const;

export function datasetEvents(): RawEvent[] {
  const out: RawEvent[] = [];
  for (const [id, p] of Object.entries(PERSONS)) {
    const add = (event: string, day: string) => {
      const [d, hour = '12'] = day.split('T');
      const session = id === 'p1' && event === '$pageleave' && d === '12' ? 'p1-12b' : `${id}-${d}`;
      out.push({
        event,
        distinct_id: id,
        uuid: uuid(),
        timestamp: `2020-01-${d}T${hour}:00:00Z`,
        properties: {
          $browser: p.$browser,
          prop: p.prop,
          $session_id: session,
          $set: { name: id, ...(p.tier ? { tier: p.tier } : {}) },
        },
      });
    };
    for (const day of p.views) add('$pageview', day);
    for (const day of p.leaves) add('$pageleave', day);
  }
  return out.sort(
    (a, b) => (a.timestamp as string).localeCompare(b.timestamp as string) || a.event.localeCompare(b.event),
  );
}

export async function sendDataset(h: Harness, token: string, projectId: number, key = h.key) {
  const events = datasetEvents();
  // One event per request in time order, so persons are created at their first event.
  for (let i = 0; i < events.length; i += 10)
    await capture(h, token, projectId, events.slice(i, i + 10), key);
}

/** One entry of an insight's `results`. */
export interface InsightResult {
  data: number[];
  days: Array<string | number>;
  labels: string[];
  count: number;
  [key: string]: unknown;
}

/** Runs a query node that must succeed. */
export const run = (h: Harness, projectId: number, node: Record<string, unknown>, key = h.key) =>
  ok(h, projectId, node, key) as unknown as Promise<{
    results: InsightResult[];
    hasMore?: boolean;
    hogql: string;
  }>;

/** Runs a query node that must fail; returns status and body. */
export async function fails(h: Harness, projectId: number, node: Record<string, unknown>) {
  const res = await query(h, projectId, node);
  return {
    status: res.statusCode,
    body: res.json() as { type: string; code: string; detail: string; attr: string | null },
  };
}

export const DAYS_9_TO_20 = Array.from({ length: 12 }, (_, i) => `2020-01-${String(9 + i).padStart(2, '0')}`);
