import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, ok, query, type RawEvent, uuid } from '../helpers/query-lists.js';

/**
 * The later web analytics features through POST /query on generated events, each compared with
 * the same definition written by hand in HogQL over the raw events: `conversionGoal` on
 * WebStatsTableQuery, the InitialReferringURL breakdown, `includeAvgTimeOnPage`, WebTrendsQuery,
 * `sampling`, and the 400s for malformed input. The project is in Berlin; some sessions cross
 * midnight there, some have one pageview, some only a pageleave.
 */
const NOW = new Date('2025-06-16T12:00:00.000Z');
const TZ = 'Europe/Berlin';
const RANGE = { date_from: '2025-06-10', date_to: '2025-06-14' };
const CUR = [`toDateTime('2025-06-10 00:00:00', '${TZ}')`, `toDateTime('2025-06-15 00:00:00', '${TZ}')`];
const PREV = [`toDateTime('2025-06-05 00:00:00', '${TZ}')`, CUR[0]];

let h: Harness;
let project: number;

/** A small deterministic generator: failures must reproduce. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const PAGES = ['/', '/pricing', '/docs', '/blog/x'];
const ENTRY_REFERRERS = [
  'https://www.google.com/search?q=burrow',
  'https://news.example.org/item?id=7#top',
  'https://news.example.org/item',
  null,
];

function generate(): RawEvent[] {
  const r = rng(11);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)] as T;
  const events: RawEvent[] = [];
  const base = Date.parse('2025-06-03T00:00:00Z');
  const push = (event: string, person: string, t: number, properties: Record<string, unknown>) =>
    events.push({
      event,
      distinct_id: person,
      timestamp: new Date(t).toISOString(),
      uuid: uuid(),
      properties,
    });
  for (let i = 0; i < 120; i++) {
    const person = `u${Math.floor(r() * 40)}`;
    const session = `gs${i}`;
    let t = base + Math.floor(r() * 12 * 24) * 3600_000 + Math.floor(r() * 3500) * 1000;
    if (i % 10 === 0) t = Date.parse('2025-06-09T21:55:00Z') + i * 1000; // 23:55 in Berlin: crosses midnight
    const entry = pick(ENTRY_REFERRERS);
    const kind = i % 6;
    if (kind === 0) {
      push('$pageleave', person, t, { $session_id: session, $pathname: '/', $prev_pageview_duration: 12 });
      continue;
    }
    const views = kind === 1 ? 1 : 1 + Math.floor(r() * 4);
    let prev: string | null = null;
    let stay = 0;
    for (let v = 0; v < views; v++) {
      const path = pick(PAGES);
      const common = { $session_id: session, ...(entry ? { $session_entry_referrer: entry } : {}) };
      push('$pageview', person, t, {
        ...common,
        $pathname: path,
        ...(prev !== null ? { $prev_pageview_pathname: prev, $prev_pageview_duration: stay } : {}),
      });
      if (path === '/pricing' && r() < 0.7)
        push('signed_up', person, t + 2000, { ...common, $pathname: path });
      if (r() < 0.15) push('signed_up', person, t + 2500, { ...common }); // no path: no Page row
      prev = path;
      stay = kind === 1 ? 3 : Math.floor(r() * (r() < 0.05 ? 200_000 : 400)); // a few above the one-day cap
      t += (kind === 1 ? 3 : 5 + Math.floor(r() * 600)) * 1000;
    }
    if (kind === 4) push('$autocapture', person, t, { $session_id: session, $event_type: 'click' });
    if (kind !== 1 || i % 2 === 0)
      push('$pageleave', person, t, {
        $session_id: session,
        $pathname: prev,
        $prev_pageview_pathname: prev,
        $prev_pageview_duration: stay,
      });
  }
  return events;
}

beforeAll(async () => {
  h = await startHarness({}, { now: () => NOW });
  project = h.boot.project_id;
  const res = await h.request('PATCH', `/api/projects/${project}/`, { body: { timezone: TZ } });
  expect(res.statusCode).toBe(200);
  await capture(h, h.boot.project_api_key, project, generate());
}, 60_000);
afterAll(async () => h?.close());

const hogql = async (sql: string) => (await ok(h, project, { kind: 'HogQLQuery', query: sql })).results;
const web = (node: Record<string, unknown>) =>
  ok(h, project, node) as Promise<Record<string, unknown> & { results: unknown[][]; columns: string[] }>;
const n = (v: unknown) => (v === null ? null : Number(v));
const byValue = (rows: unknown[][]) => [...rows].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));

/** Session starts: the first event of the session, whatever it is. */
const STARTS = `SELECT $session_id AS sid, min(timestamp) AS s_start FROM events WHERE $session_id != '' GROUP BY sid`;
const cur = `s_start >= ${CUR[0]} AND s_start < ${CUR[1]}`;
const prev = `s_start >= ${PREV[0]} AND s_start < ${PREV[1]}`;
const inWindow = `timestamp >= ${PREV[0]} AND timestamp < ${CUR[1]}`;

describe('WebStatsTableQuery with a conversion goal', () => {
  /** Per (session, value): visitors, goal events and converting persons, by the session's start. */
  const oracle = (value: string, goal: string) =>
    hogql(`SELECT v, uniqIf(pid, ${cur}), uniqIf(pid, ${prev}), sumIf(c, ${cur}), sumIf(c, ${prev}),
        uniqIf(cpid, ${cur}), uniqIf(cpid, ${prev}) FROM (
        SELECT e.v AS v, e.pid AS pid, e.c AS c, e.cpid AS cpid, st.s_start AS s_start FROM (
          SELECT $session_id AS sid, ${value} AS v, any(person_id) AS pid, countIf(${goal}) AS c,
            any(if(${goal}, person_id, NULL)) AS cpid
          FROM events WHERE (event IN ('$pageview', '$screen') OR ${goal}) AND $session_id != '' AND ${inWindow}
          GROUP BY sid, v) AS e
        JOIN (${STARTS}) AS st ON e.sid = st.sid)
      WHERE v IS NOT NULL AND ((${cur}) OR (${prev})) GROUP BY v HAVING uniqIf(pid, ${cur}) > 0 ORDER BY v`);
  const expected = (rows: unknown[][]) =>
    rows.map((r) => {
      const [cv, pv, cc, pc, cu, pu] = r.slice(1).map(Number) as [
        number,
        number,
        number,
        number,
        number,
        number,
      ];
      const v = r[0];
      return [v, [cv, pv], [cc, pc], [cu, pu], [cv ? cu / cv : null, pv ? pu / pv : null]];
    });
  const table = async (node: Record<string, unknown>) =>
    web({
      kind: 'WebStatsTableQuery',
      dateRange: RANGE,
      properties: [],
      compareFilter: { compare: true },
      limit: 1000,
      ...node,
    });

  it("answers PostHog's conversion columns per page, for a custom event and an action on it", async () => {
    const want = expected(await oracle('properties.$pathname', "event = 'signed_up'"));
    const res = await h.request('POST', `/api/projects/${project}/actions/`, {
      body: { name: 'Signed up', steps: [{ event: 'signed_up' }] },
    });
    expect(res.statusCode).toBe(201);
    const actionId = res.json().id as number;
    for (const conversionGoal of [{ customEventName: 'signed_up' }, { actionId }]) {
      const out = await table({ breakdownBy: 'Page', conversionGoal, includeBounceRate: true });
      expect(out.columns).toEqual(
        ['breakdown_value', 'visitors', 'total_conversions', 'unique_conversions', 'conversion_rate'].map(
          (c) => `context.columns.${c}`,
        ),
      );
      expect(byValue(out.results)).toEqual(want);
      // PostHog's default order: unique conversions, then total conversions, then visitors.
      const keys = out.results.map((r) => [
        (r[3] as number[])[0],
        (r[2] as number[])[0],
        (r[1] as number[])[0],
      ]);
      const sorted = [...keys].sort((a, b) => b[0]! - a[0]! || b[1]! - a[1]! || b[2]! - a[2]!);
      expect(keys).toEqual(sorted);
    }
    expect(want.find((r) => r[0] === '/pricing')![2]).not.toEqual([0, 0]);
    // ExitClick joins the outbound clicks to the same session rows: no clicks here, no rows.
    const exits = await table({ breakdownBy: 'ExitClick', conversionGoal: { actionId } });
    expect(exits.columns).toHaveLength(5);
    expect(exits.results).toEqual([]);
    // An order field whose column the answer lacks falls back to the default order, as PostHog.
    const fallback = await table({
      breakdownBy: 'Page',
      conversionGoal: { customEventName: 'signed_up' },
      orderBy: ['Errors', 'ASC'],
    });
    const plain = await table({ breakdownBy: 'Page', conversionGoal: { customEventName: 'signed_up' } });
    expect(fallback.results).toEqual(plain.results);
  });

  it('breaks down by the entry referrer URL, ordered by conversion rate on request', async () => {
    const want = expected(
      await oracle('cutQueryStringAndFragment(properties.$session_entry_referrer)', "event = 'signed_up'"),
    );
    expect(want.map((r) => r[0])).toEqual(['https://news.example.org/item', 'https://www.google.com/search']);
    const out = await table({
      breakdownBy: 'InitialReferringURL',
      conversionGoal: { customEventName: 'signed_up' },
      orderBy: ['ConversionRate', 'ASC'],
    });
    expect(byValue(out.results)).toEqual(want);
    const rates = out.results.map((r) => (r[4] as number[])[0] as number);
    expect([...rates].sort((a, b) => a - b)).toEqual(rates);
    // Without a comparison every previous value is null.
    const single = await web({
      kind: 'WebStatsTableQuery',
      dateRange: RANGE,
      properties: [],
      breakdownBy: 'InitialReferringURL',
      conversionGoal: { customEventName: 'signed_up' },
    });
    expect(single.results.every((r) => r.slice(1).every((p) => (p as unknown[])[1] === null))).toBe(true);
  });

  it('InitialReferringURL without a goal: visitors and views per entry referrer without its query', async () => {
    const rows =
      await hogql(`SELECT v, uniqIf(pid, ${cur}), uniqIf(pid, ${prev}), sumIf(c, ${cur}), sumIf(c, ${prev}) FROM (
        SELECT e.v AS v, e.pid AS pid, e.c AS c, st.s_start AS s_start FROM (
          SELECT $session_id AS sid, cutQueryStringAndFragment(properties.$session_entry_referrer) AS v,
            any(person_id) AS pid, count() AS c
          FROM events WHERE event IN ('$pageview', '$screen') AND $session_id != '' AND ${inWindow}
          GROUP BY sid, v) AS e
        JOIN (${STARTS}) AS st ON e.sid = st.sid)
      WHERE v IS NOT NULL AND ((${cur}) OR (${prev})) GROUP BY v ORDER BY v`);
    const out = await table({ breakdownBy: 'InitialReferringURL' });
    expect(byValue(out.results)).toEqual(rows.map((r) => [r[0], [n(r[1]), n(r[2])], [n(r[3]), n(r[4])]]));
  });
});

describe('WebStatsTableQuery includeAvgTimeOnPage', () => {
  it("adds PostHog's time on page (p90 of the capped duration per page left) before the bounce rate", async () => {
    const tIn = (a: string, b: string) => `timestamp >= ${a} AND timestamp < ${b}`;
    const d = 'least(toFloat(properties.$prev_pageview_duration), 86400)';
    const oracle = await hogql(`SELECT properties.$prev_pageview_pathname AS v,
        quantileIf(0.9)(${d}, ${tIn(CUR[0]!, CUR[1]!)}), quantileIf(0.9)(${d}, ${tIn(PREV[0]!, PREV[1]!)})
      FROM events WHERE event IN ('$pageview', '$pageleave', '$screen') AND properties.$prev_pageview_duration IS NOT NULL
        AND v IS NOT NULL AND ${inWindow}
      GROUP BY v`);
    const times = new Map(oracle.map((r) => [r[0], r.slice(1).map(n)]));
    const out = await web({
      kind: 'WebStatsTableQuery',
      dateRange: RANGE,
      properties: [],
      compareFilter: { compare: true },
      breakdownBy: 'Page',
      includeAvgTimeOnPage: true,
    });
    expect(out.columns).toEqual(
      ['breakdown_value', 'visitors', 'views', 'avg_time_on_page', 'bounce_rate'].map(
        (c) => `context.columns.${c}`,
      ),
    );
    expect(out.results.length).toBe(PAGES.length);
    for (const row of out.results) {
      const [c, p] = row[3] as number[];
      const o = times.get(row[0]) ?? [null, null];
      const want = o.map((x) => (x === null || Number.isNaN(x) ? 0 : x));
      expect(c).toBeCloseTo(want[0]!, 6);
      expect(p).toBeCloseTo(want[1]!, 6);
    }
    expect(Math.max(...out.results.map((r) => (r[3] as number[])[0]!))).toBeGreaterThan(0);
    // Other breakdowns ignore it, as PostHog's.
    const browsers = await web({
      kind: 'WebStatsTableQuery',
      dateRange: RANGE,
      properties: [],
      breakdownBy: 'InitialPage',
      includeAvgTimeOnPage: true,
    });
    expect(browsers.columns).toEqual(
      ['breakdown_value', 'visitors', 'views'].map((c) => `context.columns.${c}`),
    );
  });
});

describe('WebTrendsQuery', () => {
  /** Per session, over every event of the session: PostHog's definitions by hand. */
  const SESSIONS = `SELECT $session_id AS sid, min(timestamp) AS s_start,
      dateDiff('second', min(timestamp), max(timestamp)) AS dur,
      countIf(event = '$pageview') AS pageviews, countIf(event = '$autocapture') AS autos,
      countIf(event IN ('$pageview', '$screen') AND timestamp >= ${CUR[0]} AND timestamp < ${CUR[1]}) AS views_in,
      anyIf(person_id, event IN ('$pageview', '$screen')) AS pid,
      if(pageviews = 1 AND autos = 0 AND dur < 10, 1, 0) AS bounced
    FROM events WHERE $session_id != '' GROUP BY sid HAVING views_in > 0`;

  it.each([
    ['day', 'toStartOfDay'],
    ['week', 'toStartOfWeek'],
  ])('%s buckets of the session start equal the hand-written HogQL', async (interval, fn) => {
    const oracle =
      await hogql(`SELECT ${fn}(s_start) AS b, uniq(pid), sum(views_in), count(), sum(bounced), sum(dur), count()
      FROM (${SESSIONS}) WHERE ${cur} GROUP BY b ORDER BY b`);
    const metrics = ['UniqueUsers', 'PageViews', 'Sessions', 'Bounces', 'SessionDuration', 'TotalSessions'];
    const out = (await web({
      kind: 'WebTrendsQuery',
      dateRange: RANGE,
      properties: [],
      interval,
      metrics,
    })) as unknown as { results: { bucket: string; metrics: Record<string, number> }[] };
    expect(out.results.map((x) => x.bucket)).toEqual(oracle.map((r) => String(r[0])));
    expect(out.results.map((x) => metrics.map((m) => x.metrics[m]))).toEqual(
      oracle.map((r) => r.slice(1).map(Number)),
    );
    expect(out.results.length).toBeGreaterThan(interval === 'day' ? 3 : 0);
    // A DateTime bucket as PostHog's JSON writes one: ISO 8601 with the project's offset.
    if (interval === 'day') expect(out.results[0]!.bucket).toBe('2025-06-10T00:00:00+02:00');
  });

  it('answers only the metrics asked for, UniqueUsers when none, and filters by properties', async () => {
    const out = (await web({
      kind: 'WebTrendsQuery',
      dateRange: RANGE,
      properties: [{ type: 'event', key: '$pathname', value: '/pricing', operator: 'exact' }],
      interval: 'month',
      metrics: [],
    })) as unknown as { results: { bucket: string; metrics: Record<string, number> }[] };
    expect(out.results).toHaveLength(1);
    expect(Object.keys(out.results[0]!.metrics)).toEqual(['UniqueUsers']);
    const [row] = (await hogql(`SELECT uniq(pid) FROM (
        SELECT e.pid AS pid, st.s_start AS s_start FROM (
          SELECT $session_id AS sid, any(person_id) AS pid FROM events
          WHERE event = '$pageview' AND properties.$pathname = '/pricing' AND $session_id != ''
            AND timestamp >= ${CUR[0]} AND timestamp < ${CUR[1]} GROUP BY sid) AS e
        JOIN (${STARTS}) AS st ON e.sid = st.sid) WHERE ${cur}`)) as unknown[][];
    expect(out.results[0]!.metrics.UniqueUsers).toBe(Number(row?.[0]));
  });
});

describe('sampling', () => {
  it('is accepted and answers samplingRate 1 (every event is read)', async () => {
    const node = { kind: 'WebOverviewQuery', dateRange: RANGE, properties: [] };
    const full = await web(node);
    const sampled = await web({
      ...node,
      sampling: { enabled: true, forceSamplingRate: { numerator: 1, denominator: 10 } },
    });
    expect(sampled.samplingRate).toEqual({ numerator: 1 });
    expect(sampled.results).toEqual(full.results);
  });
});

describe('bad input', () => {
  it.each([
    [{ conversionGoal: { actionId: null, customEventName: null } }, 'query__conversionGoal'],
    [{ conversionGoal: { customEventName: '' } }, 'query__conversionGoal__customEventName'],
    [{ conversionGoal: { customEventName: 'x', color: 'red' } }, 'query__conversionGoal'],
    [{ conversionGoal: { actionId: true } }, 'query__conversionGoal__actionId'],
    [{ conversionGoal: { actionId: 987654 } }, 'query__conversionGoal__actionId'],
    [{ conversionGoal: 'signed_up' }, 'query__conversionGoal'],
    [{ includeAvgTimeOnPage: 'yes' }, 'query__includeAvgTimeOnPage'],
    [{ orderBy: ['Planets', 'DESC'] }, 'query__orderBy'],
    [{ sampling: { enabled: 'always' } }, 'query__sampling__enabled'],
    [{ sampling: { forceSamplingRate: { numerator: 0 } } }, 'query__sampling__forceSamplingRate'],
    [{ sampling: 0.1 }, 'query__sampling'],
  ])('WebStatsTableQuery with %j is a 400 in PostHog shape', async (extra, attr) => {
    const res = await query(h, project, {
      kind: 'WebStatsTableQuery',
      properties: [],
      breakdownBy: 'Page',
      ...extra,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ type: 'validation_error', code: 'invalid_input', attr });
  });

  it('a goal naming both an existing action and a custom event is a 400', async () => {
    const made = await h.request('POST', `/api/projects/${project}/actions/`, {
      body: { name: 'Any pageview', steps: [{ event: '$pageview' }] },
    });
    expect(made.statusCode).toBe(201);
    const res = await query(h, project, {
      kind: 'WebStatsTableQuery',
      properties: [],
      breakdownBy: 'Page',
      conversionGoal: { actionId: made.json().id, customEventName: 'signed_up' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_input', attr: 'query__conversionGoal' });
  });

  it('an unknown breakdown lists the supported ones', async () => {
    const res = await query(h, project, {
      kind: 'WebStatsTableQuery',
      properties: [],
      breakdownBy: 'Planet',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toContain('InitialReferringURL');
    expect(res.json().detail).toContain('FrustrationMetrics');
  });

  it.each([
    [{ metrics: ['UniqueUsers'] }, 'query__interval'],
    [{ interval: 'fortnight', metrics: ['UniqueUsers'] }, 'query__interval'],
    [{ interval: 'day' }, 'query__metrics'],
    [{ interval: 'day', metrics: ['Revenue'] }, 'query__metrics'],
    [{ interval: 'day', metrics: 'PageViews' }, 'query__metrics'],
    [{ interval: 'day', metrics: [], conversionGoal: {} }, 'query__conversionGoal'],
  ])('WebTrendsQuery with %j is a 400 in PostHog shape', async (extra, attr) => {
    const res = await query(h, project, { kind: 'WebTrendsQuery', properties: [], ...extra });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ type: 'validation_error', code: 'invalid_input', attr });
  });
});
