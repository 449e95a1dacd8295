import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateTeam } from '../../src/store/meta/teams.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, ok, query, type RawEvent, uuid } from '../helpers/query-lists.js';

/**
 * WebGoalsQuery, WebVitalsQuery, WebVitalsPathBreakdownQuery and the later WebStatsTableQuery
 * breakdowns (PreviousPage, ScreenName, FrustrationMetrics, scroll depth, path cleaning) through
 * POST /query on generated events, each compared with the same definition written by hand in
 * HogQL over the raw events. The project is in New York: some sessions cross midnight there, some
 * have one pageview, some only a pageleave.
 */
const NOW = new Date('2025-06-16T12:00:00.000Z');
const TZ = 'America/New_York';
const RANGE = { date_from: '2025-06-10', date_to: '2025-06-14' };
const CUR = [`toDateTime('2025-06-10 00:00:00', '${TZ}')`, `toDateTime('2025-06-15 00:00:00', '${TZ}')`];
const PREV = [`toDateTime('2025-06-05 00:00:00', '${TZ}')`, CUR[0]];

let h: Harness;
let project: number;

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const PAGES = ['/', '/pricing', '/blog/12', '/blog/345', '/docs/7/intro'];
const SCREENS = ['Home', 'Settings', 'Cart'];

function generate(): RawEvent[] {
  const r = rng(7);
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
  for (let i = 0; i < 100; i++) {
    const person = `p${Math.floor(r() * 35)}`;
    const session = `s${i}`;
    let t = base + Math.floor(r() * 12 * 24) * 3600_000 + Math.floor(r() * 3500) * 1000 + 17_000;
    if (i % 10 === 0) t = Date.parse('2025-06-10T03:50:00Z') + i * 1000; // 23:50 in New York: crosses midnight
    if (i % 10 === 1) t = Date.parse('2025-06-15T03:45:00Z') + i * 1000; // crosses the end of the range
    const referrer = pick(['$direct', 'https://www.google.com/search', 'https://site.example/blog/99']);
    const kind = i % 7;
    if (kind === 0) {
      push('$pageleave', person, t, {
        $session_id: session,
        $pathname: '/',
        $current_url: 'https://site.example/',
      });
      continue;
    }
    if (kind === 5) {
      // A mobile session: screens only.
      for (let v = 0; v < 2; v++) {
        push('$screen', person, t, { $session_id: session, $screen_name: pick(SCREENS) });
        t += 30_000;
      }
      continue;
    }
    const views = kind === 1 ? 1 : 1 + Math.floor(r() * 4);
    let prev: string | null = null;
    let scroll = 0;
    let contentPct = 0;
    for (let v = 0; v < views; v++) {
      const path = pick(PAGES);
      push('$pageview', person, t, {
        $session_id: session,
        $pathname: path,
        $current_url: `https://site.example${path}`,
        $referrer: referrer,
        $referring_domain: referrer === '$direct' ? '$direct' : new URL(referrer).hostname,
        ...(prev !== null
          ? {
              $prev_pageview_pathname: prev,
              $prev_pageview_max_scroll_percentage: scroll,
              $prev_pageview_max_content_percentage: contentPct,
            }
          : {}),
      });
      if (r() < 0.4)
        push('$web_vitals', person, t + 1000, {
          $session_id: session,
          $pathname: path,
          $web_vitals_LCP_value: Math.floor(r() * 5000),
          $web_vitals_INP_value: Math.floor(r() * 600),
        });
      if (r() < 0.3)
        push(pick(['$rageclick', '$dead_click', '$exception']), person, t + 2000, {
          $session_id: session,
          $pathname: path,
        });
      if (path === '/pricing' && r() < 0.6) push('signed_up', person, t + 3000, { $session_id: session });
      prev = path;
      scroll = Math.round(r() * 100) / 100;
      contentPct = Math.round(r() * 100) / 100;
      t += (kind === 1 ? 3 : 5 + Math.floor(r() * 600)) * 1000;
    }
    if (kind === 4 || kind === 6)
      for (let c = 0; c < 1 + (i % 2); c++)
        push('$autocapture', person, t + c * 1000, {
          $session_id: session,
          $event_type: 'click',
          $external_click_url: `https://out.example/${(i + c) % 3}`,
        });
    if (kind !== 1 || i % 2 === 0)
      push('$pageleave', person, t, {
        $session_id: session,
        $pathname: prev,
        $prev_pageview_pathname: prev,
        $prev_pageview_max_scroll_percentage: scroll,
        $prev_pageview_max_content_percentage: contentPct,
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
  ok(h, project, node) as Promise<Record<string, unknown> & { results: unknown[][] }>;
const n = (v: unknown) => (v === null ? null : Number(v));

/** Session starts: the first event of the session, whatever it is. */
const STARTS = `SELECT $session_id AS sid, min(timestamp) AS s_start FROM events WHERE $session_id != '' GROUP BY sid`;
const cur = `s_start >= ${CUR[0]} AND s_start < ${CUR[1]}`;
const prev = `s_start >= ${PREV[0]} AND s_start < ${PREV[1]}`;
const inWindow = `timestamp >= ${PREV[0]} AND timestamp < ${CUR[1]}`;

describe('WebGoalsQuery', () => {
  it('is empty without actions, then one row per action equal to the hand-written HogQL', async () => {
    const goalsNode = { kind: 'WebGoalsQuery', dateRange: RANGE, properties: [] };
    const blocking = async () =>
      (await query(h, project, goalsNode, h.key, { refresh: 'blocking' })).json() as { results: unknown[][] };
    expect((await blocking()).results).toEqual([]);
    const make = async (name: string, steps: unknown[]) => {
      const res = await h.request('POST', `/api/projects/${project}/actions/`, { body: { name, steps } });
      expect(res.statusCode).toBe(201);
    };
    await make('Signed up', [{ event: 'signed_up' }]);
    await make('Saw pricing', [{ event: '$pageview', url: '/pricing', url_matching: 'contains' }]);
    const goals = {
      'Signed up': "event = 'signed_up'",
      'Saw pricing': "event = '$pageview' AND properties.$current_url LIKE '%/pricing%'",
    };
    const out = await web({
      kind: 'WebGoalsQuery',
      dateRange: RANGE,
      properties: [],
      compareFilter: { compare: true },
    });
    expect(out.columns).toEqual([
      'context.columns.action_name',
      'context.columns.converting_users',
      'context.columns.total_conversions',
      'context.columns.conversion_rate',
    ]);
    // The most recently created first.
    expect(out.results.map((r) => r[0])).toEqual(['Saw pricing', 'Signed up']);
    const anyGoal = Object.values(goals)
      .map((g) => `(${g})`)
      .join(' OR ');
    for (const row of out.results) {
      const g = goals[row[0] as keyof typeof goals];
      const [o] = await hogql(`SELECT uniqIf(pid, ${cur}), uniqIf(pid, ${prev}), sum(c), sum(pc),
          uniqIf(pid, c > 0), uniqIf(pid, pc > 0) FROM (
          SELECT e.pid AS pid, e.c AS c, e.pc AS pc, st.s_start AS s_start FROM (
            SELECT $session_id AS sid, any(person_id) AS pid,
              countIf((${g}) AND timestamp >= ${CUR[0]} AND timestamp < ${CUR[1]}) AS c,
              countIf((${g}) AND timestamp >= ${PREV[0]} AND timestamp < ${PREV[1]}) AS pc
            FROM events WHERE $session_id != '' AND (event IN ('$pageview', '$screen') OR ${anyGoal}) AND ${inWindow}
            GROUP BY sid) AS e JOIN (${STARTS}) AS st ON e.sid = st.sid
          WHERE (${cur}) OR (${prev}))`);
      const v = (o as unknown[]).map(n) as number[];
      expect(row[1]).toEqual([v[4], v[5]]);
      expect(row[2]).toEqual([v[2], v[3]]);
      expect((row[3] as number[])[0]).toBeCloseTo((v[4] as number) / (v[0] as number), 9);
      expect((row[3] as number[])[1]).toBeCloseTo((v[5] as number) / (v[1] as number), 9);
      expect(v[2]).toBeGreaterThan(0);
    }
    // The same node as the empty answer: the actions are part of the cache key.
    const plain = await blocking();
    expect(plain.results.map((r) => r[0])).toEqual(['Saw pricing', 'Signed up']);
    expect(
      plain.results.every((r) => (r[1] as unknown[])[1] === null && (r[3] as unknown[])[1] === null),
    ).toBe(true);
  });
});

describe('WebVitalsQuery and WebVitalsPathBreakdownQuery', () => {
  it('WebVitalsQuery answers as its TrendsQuery source', async () => {
    const source = {
      kind: 'TrendsQuery',
      dateRange: RANGE,
      interval: 'day',
      series: ['p75', 'p90'].map((math) => ({
        kind: 'EventsNode',
        event: '$web_vitals',
        custom_name: 'LCP',
        math,
        math_property: '$web_vitals_LCP_value',
      })),
    };
    const vitals = await web({ kind: 'WebVitalsQuery', properties: [], source });
    const trends = await web(source);
    expect(vitals.results).toEqual(trends.results);
    const days =
      await hogql(`SELECT toString(toDate(timestamp)) AS d, quantile(0.75)(toFloat(properties.$web_vitals_LCP_value))
      FROM events WHERE event = '$web_vitals' AND timestamp >= ${CUR[0]} AND timestamp < ${CUR[1]} GROUP BY d ORDER BY d`);
    const series = vitals.results[0] as unknown as { data: number[]; days: string[] };
    for (const [d, v] of days)
      expect(series.data[series.days.indexOf(d as string)]).toBeCloseTo(Number(v), 6);
  });

  it.each([
    ['LCP', 'p75', [2500, 4000]],
    ['INP', 'p90', [200, 500]],
  ])(
    '%s %s: paths fall in the bands by the hand-written percentile',
    async (metric, percentile, thresholds) => {
      const q = { p75: 0.75, p90: 0.9 }[percentile as 'p75'];
      const oracle =
        await hogql(`SELECT properties.$pathname AS path, quantile(${q})(toFloat(properties.$web_vitals_${metric}_value)) AS v
      FROM events WHERE event = '$web_vitals' AND timestamp >= ${CUR[0]} AND timestamp < ${CUR[1]}
      GROUP BY path ORDER BY v, path`);
      const [good, poor] = thresholds as [number, number];
      const expected = { good: [] as unknown[], needs_improvements: [] as unknown[], poor: [] as unknown[] };
      for (const [path, v] of oracle) {
        const value = Number(v);
        const band = value <= good ? 'good' : value <= poor ? 'needs_improvements' : 'poor';
        expected[band].push({ path, value });
      }
      const out = await web({
        kind: 'WebVitalsPathBreakdownQuery',
        dateRange: RANGE,
        properties: [],
        metric,
        percentile,
        thresholds,
      });
      const got = out.results[0] as unknown as Record<string, { path: string; value: number }[]>;
      expect(Object.keys(got)).toEqual(['good', 'needs_improvements', 'poor']);
      for (const band of Object.keys(expected) as (keyof typeof expected)[]) {
        expect(got[band]!.map((x) => x.path)).toEqual(
          expected[band].map((x) => (x as { path: string }).path),
        );
        got[band]!.forEach((x, i) => {
          expect(x.value).toBeCloseTo((expected[band][i] as { value: number }).value, 6);
        });
      }
      expect(oracle.length).toBeGreaterThan(2);
    },
  );
});

describe('WebStatsTableQuery: the later breakdowns', () => {
  /** Per (session, value): pageview/screen counts by session start, by the hand-written value. */
  const perValue = async (value: string, events = "event IN ('$pageview', '$screen')") =>
    hogql(`SELECT v, uniqIf(pid, ${cur}), uniqIf(pid, ${prev}), sumIf(c, ${cur}), sumIf(c, ${prev}) FROM (
        SELECT e.v AS v, e.pid AS pid, e.c AS c, st.s_start AS s_start FROM (
          SELECT $session_id AS sid, ${value} AS v, any(person_id) AS pid, count() AS c FROM events
          WHERE ${events} AND $session_id != '' AND ${inWindow} GROUP BY sid, v) AS e
        JOIN (${STARTS}) AS st ON e.sid = st.sid)
      WHERE v IS NOT NULL AND ((${cur}) OR (${prev})) GROUP BY v HAVING uniqIf(pid, ${cur}) > 0 ORDER BY v`);
  const table = async (node: Record<string, unknown>) => {
    const out = await web({
      kind: 'WebStatsTableQuery',
      dateRange: RANGE,
      properties: [],
      compareFilter: { compare: true },
      limit: 1000,
      ...node,
    });
    return [...out.results].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));
  };
  const pairs = (rows: unknown[][]) => rows.map((r) => [r[0], [n(r[1]), n(r[2])], [n(r[3]), n(r[4])]]);

  it('ScreenName', async () => {
    const oracle = await perValue('properties.$screen_name');
    expect(await table({ breakdownBy: 'ScreenName' })).toEqual(pairs(oracle));
    expect(oracle.length).toBe(3);
  });

  it('PreviousPage: the SPA previous path, a same-site referrer path, else the referrer', async () => {
    const oracle =
      await perValue(`multiIf(properties.$prev_pageview_pathname IS NOT NULL, properties.$prev_pageview_pathname,
      domain(properties.$current_url) = domain(properties.$referrer), path(properties.$referrer), properties.$referrer)`);
    const got = await table({ breakdownBy: 'PreviousPage' });
    expect(got).toEqual(pairs(oracle));
    expect(got.map((r) => r[0])).toEqual(expect.arrayContaining(['/blog/99', '$direct', '/pricing']));
  });

  it('Page with doPathCleaning applies the project rules in order; a hostile rule is a 400', async () => {
    const set = async (rules: unknown) => {
      const res = await h.request('PATCH', `/api/projects/${project}/`, {
        body: { path_cleaning_filters: rules },
      });
      expect(res.statusCode).toBe(200);
    };
    await set([
      { regex: '/\\d+', alias: '/:id' },
      { regex: '^/docs/:id/.*$', alias: '/docs/*' },
    ]);
    const warm = { kind: 'WebStatsTableQuery', breakdownBy: 'Page', properties: [], doPathCleaning: true };
    expect((await query(h, project, warm, h.key, { refresh: 'blocking' })).statusCode).toBe(200);
    const oracle = await perValue(
      "replaceRegexpAll(replaceRegexpAll(properties.$pathname, '/\\\\d+', '/:id'), '^/docs/:id/.*$', '/docs/*')",
    );
    const got = await table({ breakdownBy: 'Page', doPathCleaning: true });
    expect(got).toEqual(pairs(oracle));
    expect(got.map((r) => r[0])).toEqual(['/', '/blog/:id', '/docs/*', '/pricing']);
    // Without the flag the rules do not apply.
    expect((await table({ breakdownBy: 'Page' })).map((r) => r[0])).toContain('/blog/12');
    // A pattern RE2 cannot run is refused when saved, naming the rule.
    const refused = await h.request('PATCH', `/api/projects/${project}/`, {
      body: {
        path_cleaning_filters: [
          { regex: '/ok', alias: '' },
          { regex: '(a+)+\\1', alias: 'x' },
        ],
      },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      type: 'validation_error',
      attr: 'path_cleaning_filters__1__regex',
    });
    // One stored before saves were checked (written here straight to the store) is refused by the query.
    await updateTeam(h.deps.meta, project, {
      settings: { path_cleaning_filters: [{ regex: '(a+)+\\1', alias: 'x' }] },
      updatedAt: new Date().toISOString(),
    });
    // A cached answer is not reused once the rules change: they are part of the cache key.
    const cachedNode = {
      kind: 'WebStatsTableQuery',
      breakdownBy: 'Page',
      properties: [],
      doPathCleaning: true,
    };
    const again = await query(h, project, cachedNode, h.key, { refresh: 'blocking' });
    expect(again.statusCode).toBe(400);
    const bad = await query(h, project, {
      kind: 'WebStatsTableQuery',
      breakdownBy: 'Page',
      properties: [],
      doPathCleaning: true,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ type: 'validation_error', code: 'invalid_input' });
    expect(bad.json().detail).toContain('RE2');
    await set([]);
  });

  it("ExitClick: the session's last outbound click", async () => {
    const oracle =
      await hogql(`SELECT v, uniqIf(pid, ${cur}), uniqIf(pid, ${prev}), sumIf(c, ${cur}), sumIf(c, ${prev}) FROM (
        SELECT k.v AS v, e.pid AS pid, e.c AS c, st.s_start AS s_start FROM (
          SELECT $session_id AS sid, any(person_id) AS pid, count() AS c FROM events
          WHERE event IN ('$pageview', '$screen') AND $session_id != '' AND ${inWindow} GROUP BY sid) AS e
        JOIN (SELECT $session_id AS sid, argMax(properties.$external_click_url, timestamp) AS v FROM events
          WHERE event = '$autocapture' AND ${inWindow} GROUP BY sid) AS k ON e.sid = k.sid
        JOIN (${STARTS}) AS st ON e.sid = st.sid)
      WHERE (${cur}) OR (${prev}) GROUP BY v HAVING uniqIf(pid, ${cur}) > 0 ORDER BY v`);
    expect(await table({ breakdownBy: 'ExitClick' })).toEqual(pairs(oracle));
    expect(oracle.length).toBe(3);
  });

  it('FrustrationMetrics: rage clicks, dead clicks and errors per page', async () => {
    const oracle =
      await hogql(`SELECT v, sumIf(r, ${cur}), sumIf(r, ${prev}), sumIf(d, ${cur}), sumIf(d, ${prev}), sumIf(x, ${cur}), sumIf(x, ${prev}) FROM (
        SELECT e.v AS v, e.r AS r, e.d AS d, e.x AS x, st.s_start AS s_start FROM (
          SELECT $session_id AS sid, properties.$pathname AS v, countIf(event = '$rageclick') AS r,
            countIf(event = '$dead_click') AS d, countIf(event = '$exception') AS x FROM events
          WHERE $session_id != '' AND ${inWindow} GROUP BY sid, v) AS e
        JOIN (${STARTS}) AS st ON e.sid = st.sid)
      WHERE v IS NOT NULL AND ((${cur}) OR (${prev})) GROUP BY v
      HAVING sum(r) + sum(d) + sum(x) > 0 ORDER BY v`);
    const out = await web({
      kind: 'WebStatsTableQuery',
      breakdownBy: 'FrustrationMetrics',
      dateRange: RANGE,
      properties: [],
      compareFilter: { compare: true },
    });
    expect(out.columns).toEqual([
      'context.columns.breakdown_value',
      'context.columns.rage_clicks',
      'context.columns.dead_clicks',
      'context.columns.errors',
    ]);
    const errors = out.results.map((r) => (r[3] as number[])[0] as number);
    expect([...errors].sort((a, b) => b - a)).toEqual(errors);
    const got = [...out.results].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));
    expect(got).toEqual(
      oracle.map((r) => [r[0], [n(r[1]), n(r[2])], [n(r[3]), n(r[4])], [n(r[5]), n(r[6])]]),
    );
  });

  it('includeScrollDepth: average scroll and the share past 80% per page left', async () => {
    const oracle =
      await hogql(`SELECT v, avgIf(s, ${cur}), avgIf(s, ${prev}), avgIf(g, ${cur}), avgIf(g, ${prev}) FROM (
        SELECT e.v AS v, e.s AS s, e.g AS g, st.s_start AS s_start FROM (
          SELECT $session_id AS sid, properties.$prev_pageview_pathname AS v,
            toFloat(properties.$prev_pageview_max_scroll_percentage) AS s,
            if(toFloat(properties.$prev_pageview_max_content_percentage) > 0.8, 1, 0) AS g
          FROM events WHERE event IN ('$pageview', '$pageleave') AND properties.$prev_pageview_pathname IS NOT NULL
            AND $session_id != '' AND ${inWindow}) AS e
        JOIN (${STARTS}) AS st ON e.sid = st.sid)
      WHERE (${cur}) OR (${prev}) GROUP BY v ORDER BY v`);
    const got = await table({ breakdownBy: 'Page', includeBounceRate: true, includeScrollDepth: true });
    const byPath = new Map(oracle.map((r) => [r[0], r.slice(1).map(n)]));
    expect(got.length).toBeGreaterThan(3);
    for (const row of got) {
      const o = byPath.get(row[0]);
      const [avg, gt80] = [row[4] as (number | null)[], row[5] as (number | null)[]];
      if (!o) {
        expect(avg).toEqual([null, null]);
        continue;
      }
      o.forEach((v, i) => {
        const x = [avg[0], avg[1], gt80[0], gt80[1]][i];
        if (v === null || Number.isNaN(v)) expect(x).toBeNull();
        else expect(x).toBeCloseTo(v, 9);
      });
    }
  });
});

describe('SessionAttributionExplorerQuery', () => {
  it('counts sessions per referring domain and entry URL, as the hand-written HogQL', async () => {
    const oracle = await hogql(`SELECT count(), d, u FROM (
        SELECT $session_id AS sid, min(timestamp) AS s_start,
          argMinIf(properties.$referring_domain, timestamp, properties.$current_url IS NOT NULL) AS d,
          argMinIf(properties.$current_url, timestamp, properties.$current_url IS NOT NULL) AS u
        FROM events WHERE $session_id != '' GROUP BY sid)
      WHERE ${cur} GROUP BY nullIf(d, '') AS d, nullIf(u, '') AS u ORDER BY count() DESC, d, u`);
    const out = await web({
      kind: 'SessionAttributionExplorerQuery',
      groupBy: ['ReferringDomain', 'InitialURL'],
      filters: { dateRange: RANGE },
      limit: 1000,
    });
    expect(out.columns).toEqual(
      [
        'count',
        'channel_type',
        'referring_domain',
        'utm_source',
        'utm_medium',
        'utm_campaign',
        'ad_ids',
        'example_entry_urls',
      ].map((c) => `context.columns.${c}`),
    );
    const key = (r: unknown[]) => JSON.stringify([r[0], r[1], r[2]]);
    expect(out.results.map((r) => key([Number(r[0]), r[2], r[7]])).sort()).toEqual(
      oracle.map((r) => key([Number(r[0]), r[1], r[2]])).sort(),
    );
    const counts = out.results.map((r) => Number(r[0]));
    expect([...counts].sort((a, b) => b - a)).toEqual(counts);
    // Not grouped: the ten most common values, as a list.
    expect(Array.isArray(out.results[0]![1])).toBe(true);
    expect(out.results[0]![6]).toEqual([]);
    const all = await web({
      kind: 'SessionAttributionExplorerQuery',
      groupBy: [],
      filters: { dateRange: RANGE },
    });
    expect(all.results).toHaveLength(1);
    expect(Number(all.results[0]![0])).toBe(oracle.reduce((a, r) => a + Number(r[0]), 0));
  });
});

describe('bad input', () => {
  it.each([
    [
      {
        kind: 'WebVitalsPathBreakdownQuery',
        properties: [],
        metric: 'TTFB',
        percentile: 'p75',
        thresholds: [1, 2],
      },
      'query__metric',
    ],
    [
      {
        kind: 'WebVitalsPathBreakdownQuery',
        properties: [],
        metric: 'LCP',
        percentile: 'p50',
        thresholds: [1, 2],
      },
      'query__percentile',
    ],
    [
      {
        kind: 'WebVitalsPathBreakdownQuery',
        properties: [],
        metric: 'LCP',
        percentile: 'p75',
        thresholds: [5, 'x'],
      },
      'query__thresholds',
    ],
    [{ kind: 'WebVitalsQuery', properties: [] }, 'query__source'],
    [
      { kind: 'WebVitalsQuery', properties: [], source: { kind: 'FunnelsQuery', series: [] } },
      'query__source',
    ],
    [{ kind: 'WebGoalsQuery', properties: [], orderBy: 'up' }, 'query__orderBy'],
    [{ kind: 'SessionAttributionExplorerQuery', groupBy: ['Planet'] }, 'query__groupBy'],
    [{ kind: 'SessionAttributionExplorerQuery', groupBy: [], limit: 0 }, 'query__limit'],
    [{ kind: 'WebStatsTableQuery', properties: [], breakdownBy: 'NextPage' }, 'query__breakdownBy'],
    [
      { kind: 'WebStatsTableQuery', properties: [], breakdownBy: 'Page', doPathCleaning: 'yes' },
      'query__doPathCleaning',
    ],
  ])('%j is a 400 in PostHog shape', async (node, attr) => {
    const res = await query(h, project, node);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ type: 'validation_error', code: 'invalid_input', attr });
  });
});
