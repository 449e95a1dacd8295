import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEvents } from '../helpers/events-insert.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { ok } from '../helpers/query-lists.js';
import { seededRandom } from '../helpers/random.js';

/**
 * PathsQuery against a plain implementation of its rules on seeded random streams: sessions cut
 * where the gap to the previous event exceeds 30 minutes (exactly 30 does not cut), repeats in a
 * row collapsed within a session, start/end points and the step limit, edges weighted by sessions
 * with their average time. Streams include exact 30-minute gaps, repeats across a cut and URLs
 * with a trailing slash.
 */
const NOW = new Date('2025-07-01T12:00:00.000Z');
const GAP = 30 * 60_000;
const URLS = ['/', '/a', '/a/', '/b', '/c', '/d'].map((p) => `https://x.io${p}`);
let h: Harness;
let project: number;

type View = { person: string; ms: number; url: string };
const views: View[] = [];

const hex = (n: number) => n.toString(16).padStart(12, '0');
const ts = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '000');

beforeAll(async () => {
  h = await startHarness({}, { now: () => NOW });
  project = h.boot.project_id;
  const rand = seededRandom(7);
  const start = Date.parse('2025-06-10T00:00:00Z');
  for (let p = 0; p < 60; p++) {
    const person = `0190b6a4-0000-7000-8000-${hex(p + 1)}`;
    let ms = start + Math.floor(rand() * 86_400_000);
    let url = URLS[Math.floor(rand() * URLS.length)] as string;
    const n = 1 + Math.floor(rand() * 30);
    for (let i = 0; i < n; i++) {
      views.push({ person, ms, url });
      const r = rand();
      // Distinct times per person (so the order is defined); some gaps exactly at the cut.
      ms +=
        r < 0.1
          ? GAP
          : r < 0.25
            ? GAP + 1 + Math.floor(rand() * 5 * GAP)
            : 1000 + Math.floor(rand() * 600_000);
      if (rand() > 0.3) url = URLS[Math.floor(rand() * URLS.length)] as string;
    }
  }
  await insertEvents(
    h.stores.events,
    views.map((v, i) => ({
      uuid: `00000000-0000-7000-8000-${hex(i + 1)}`,
      event: '$pageview',
      properties: JSON.stringify({ $current_url: v.url }),
      timestamp: ts(v.ms),
      team_id: project,
      distinct_id: `d-${v.person}`,
      person_id: v.person,
    })),
  );
});
afterAll(async () => h?.close());

type Edge = { source: string; target: string; value: number; average_conversion_time: number };

/** The rules, written out plainly. */
function expected(opts: {
  startPoint?: string;
  endPoint?: string;
  stepLimit?: number;
  edgeLimit?: number;
}): Edge[] {
  const L = opts.stepLimit ?? 5;
  const byPerson = new Map<string, View[]>();
  for (const v of views) byPerson.set(v.person, [...(byPerson.get(v.person) ?? []), v]);
  const edges = new Map<string, { n: number; total: number }>();
  for (const list of byPerson.values()) {
    list.sort((a, b) => a.ms - b.ms);
    const sessions: Array<Array<[number, string]>> = [];
    for (const [i, v] of list.entries()) {
      const name = v.url.length > 1 ? v.url.replace(/\/$/, '') : v.url;
      if (i === 0 || v.ms - (list[i - 1] as View).ms > GAP) sessions.push([]);
      const s = sessions[sessions.length - 1] as Array<[number, string]>;
      if (!s.length || (s[s.length - 1] as [number, string])[1] !== name) s.push([v.ms, name]);
    }
    for (const s of sessions) {
      const startIdx = opts.startPoint ? s.findIndex((x) => x[1] === opts.startPoint) + 1 : 1;
      if (startIdx === 0) continue;
      const fromStart = s.slice(startIdx - 1);
      let path = fromStart.slice(0, L);
      if (opts.endPoint) {
        const endIdx = fromStart.findIndex((x) => x[1] === opts.endPoint) + 1;
        if (endIdx === 0) continue;
        const from = Math.max(1, endIdx - (L - 1));
        path = fromStart.slice(from - 1, from - 1 + Math.min(endIdx, L));
      }
      for (let i = 0; i + 1 < path.length; i++) {
        const [t1, a] = path[i] as [number, string];
        const [t2, b] = path[i + 1] as [number, string];
        const key = `${i + 1}_${a}\n${i + 2}_${b}`;
        const e = edges.get(key) ?? { n: 0, total: 0 };
        e.n += 1;
        e.total += t2 - t1;
        edges.set(key, e);
      }
    }
  }
  return [...edges.entries()]
    .map(([key, e]) => {
      const [source, target] = key.split('\n') as [string, string];
      return { source, target, value: e.n, average_conversion_time: e.total / e.n };
    })
    .sort(
      (x, y) =>
        y.value - x.value ||
        (x.source < y.source ? -1 : x.source > y.source ? 1 : 0) ||
        (x.target < y.target ? -1 : x.target > y.target ? 1 : 0),
    )
    .slice(0, opts.edgeLimit ?? 50);
}

async function actual(filter: Record<string, unknown>): Promise<Edge[]> {
  const out = await ok(h, project, {
    kind: 'PathsQuery',
    dateRange: { date_from: '2025-06-01', date_to: '2025-06-30' },
    pathsFilter: { includeEventTypes: ['$pageview'], ...filter },
  });
  return out.results as unknown as Edge[];
}

function same(got: Edge[], want: Edge[]) {
  expect(got.map((e) => [e.source, e.target, e.value])).toEqual(
    want.map((e) => [e.source, e.target, e.value]),
  );
  for (const [i, e] of got.entries()) {
    expect(e.average_conversion_time).toBeCloseTo((want[i] as Edge).average_conversion_time, 3);
  }
}

describe('PathsQuery against its rules on random streams', () => {
  it('every edge, no start or end point', async () => {
    const want = expected({ edgeLimit: 1000 });
    expect(want.length).toBeGreaterThan(50);
    same(await actual({ edgeLimit: 1000 }), want);
  });

  it('default edge limit and step limit', async () => {
    same(await actual({}), expected({}));
    same(await actual({ stepLimit: 3 }), expected({ stepLimit: 3 }));
  });

  it('start and end points', async () => {
    for (const point of ['https://x.io/a', 'https://x.io/', 'https://x.io/d']) {
      same(
        await actual({ startPoint: point, edgeLimit: 1000 }),
        expected({ startPoint: point, edgeLimit: 1000 }),
      );
      same(
        await actual({ endPoint: point, stepLimit: 4, edgeLimit: 1000 }),
        expected({ endPoint: point, stepLimit: 4, edgeLimit: 1000 }),
      );
    }
  });
});
