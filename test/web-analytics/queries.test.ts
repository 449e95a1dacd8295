import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelType } from '../../src/hogql/channel-type.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, ok, query, type RawEvent, uuid } from '../helpers/query-lists.js';
import { CASES } from './channel-cases.js';

/**
 * WebOverviewQuery and WebStatsTableQuery through POST /query on generated events, each number
 * compared with the same definition written by hand in HogQL over the raw events (HogQLQuery).
 * The project is in New York: sessions cross midnight there, some have one pageview, some only a
 * pageleave, some start before the previous period.
 */
const NOW = new Date('2025-06-16T12:00:00.000Z');
const TZ = 'America/New_York';
const RANGE = { date_from: '2025-06-10', date_to: '2025-06-14' };
const CUR = [`toDateTime('2025-06-10 00:00:00', '${TZ}')`, `toDateTime('2025-06-15 00:00:00', '${TZ}')`];
const PREV = [`toDateTime('2025-06-05 00:00:00', '${TZ}')`, CUR[0]];

let h: Harness;
let project: number;

/** A small deterministic generator (no Math.random: failures must reproduce). */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const PAGES = ['/', '/pricing', '/docs', '/blog/a', '/blog/b'];
const REFERRERS = ['$direct', 'www.google.com', 't.co', 'blog.example.org', 'duckduckgo.com'];
const BROWSERS = ['Chrome', 'Firefox', 'Safari'];

function generate(): RawEvent[] {
  const r = rng(42);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)] as T;
  const events: RawEvent[] = [];
  const base = Date.parse('2025-06-03T00:00:00Z');
  for (let i = 0; i < 90; i++) {
    const person = `p${Math.floor(r() * 30)}`;
    const session = `s${i}`;
    // Session starts spread over 2025-06-03 .. 2025-06-15, on whole seconds away from the bounds.
    let t = base + Math.floor(r() * 12 * 24) * 3600_000 + Math.floor(r() * 3500) * 1000 + 17_000;
    if (i % 10 === 0) t = Date.parse('2025-06-10T03:50:00Z') + i * 1000; // 23:50 in New York, the night before
    if (i % 10 === 1) t = Date.parse('2025-06-15T03:45:00Z') + i * 1000; // crosses the end of the range
    const referrer = pick(REFERRERS);
    const utm =
      r() < 0.3
        ? {
            utm_source: pick(['google', 'newsletter', 'facebook']),
            utm_medium: pick(['cpc', 'email', 'social']),
          }
        : {};
    const browser = pick(BROWSERS);
    const common = (path: string) => ({
      $session_id: session,
      $pathname: path,
      $current_url: `https://site.example${path}`,
      $referring_domain: referrer,
      $browser: browser,
      ...utm,
    });
    const kind = i % 7;
    if (kind === 0) {
      // Only a pageleave: no pageview, the session counts nowhere.
      events.push({
        event: '$pageleave',
        distinct_id: person,
        timestamp: new Date(t).toISOString(),
        uuid: uuid(),
        properties: common('/'),
      });
      continue;
    }
    const views = kind === 1 ? 1 : 1 + Math.floor(r() * 4);
    for (let v = 0; v < views; v++) {
      events.push({
        event: '$pageview',
        distinct_id: person,
        timestamp: new Date(t).toISOString(),
        uuid: uuid(),
        properties: common(pick(PAGES)),
      });
      t += (kind === 1 ? 3 : 5 + Math.floor(r() * 600)) * 1000;
    }
    if (kind === 2)
      events.push({
        event: '$autocapture',
        distinct_id: person,
        timestamp: new Date(t).toISOString(),
        uuid: uuid(),
        properties: common('/'),
      });
    if (kind === 4)
      events.push({
        event: '$autocapture',
        distinct_id: person,
        timestamp: new Date(t).toISOString(),
        uuid: uuid(),
        properties: {
          ...common('/'),
          $event_type: 'click',
          $external_click_url: `https://out.example/${pick(['a', 'b'])}?ref=${i}`,
        },
      });
    if (kind === 3) t += 1_200_000; // a pageleave 20 min later
    if (kind !== 1 || i % 2 === 0)
      events.push({
        event: '$pageleave',
        distinct_id: person,
        timestamp: new Date(t).toISOString(),
        uuid: uuid(),
        properties: common('/'),
      });
    // A custom event outside the session column.
    events.push({
      event: 'signed_up',
      distinct_id: person,
      timestamp: new Date(t).toISOString(),
      uuid: uuid(),
      properties: { $session_id: session },
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

/** Per session, over every event of the session: the hand-written definitions. */
const SESSIONS = `SELECT $session_id AS sid, min(timestamp) AS s_start,
    dateDiff('second', min(timestamp), max(timestamp)) AS dur,
    countIf(event = '$pageview') AS pageviews, countIf(event = '$autocapture') AS autos,
    countIf(event IN ('$pageview', '$screen') AND timestamp >= ${PREV[0]} AND timestamp < ${CUR[1]}) AS views_in,
    anyIf(person_id, event IN ('$pageview', '$screen')) AS pid,
    if(pageviews = 1 AND autos = 0 AND dur < 10, 1, 0) AS bounced
  FROM events WHERE $session_id != '' GROUP BY sid HAVING views_in > 0`;
const cur = `s_start >= ${CUR[0]} AND s_start < ${CUR[1]}`;
const prev = `s_start >= ${PREV[0]} AND s_start < ${PREV[1]}`;

describe('WebOverviewQuery', () => {
  it('equals the hand-written HogQL for both periods', async () => {
    const [row] =
      await hogql(`SELECT uniqIf(pid, ${cur}), uniqIf(pid, ${prev}), sumIf(views_in, ${cur}), sumIf(views_in, ${prev}),
        countIf(${cur}), countIf(${prev}), avgIf(dur, ${cur}), avgIf(dur, ${prev}), avgIf(bounced, ${cur}), avgIf(bounced, ${prev})
      FROM (${SESSIONS})`);
    const o = (row as unknown[]).map(Number);
    const out = await web({
      kind: 'WebOverviewQuery',
      dateRange: RANGE,
      properties: [],
      compareFilter: { compare: true },
    });
    const items = out.results as unknown as {
      key: string;
      kind: string;
      value: number;
      previous: number;
      changeFromPreviousPct: number | null;
    }[];
    expect(items.map((i) => [i.key, i.kind])).toEqual([
      ['visitors', 'unit'],
      ['views', 'unit'],
      ['sessions', 'unit'],
      ['session duration', 'duration_s'],
      ['bounce rate', 'percentage'],
    ]);
    const at = (k: string) => items.find((i) => i.key === k)!;
    expect([at('visitors').value, at('visitors').previous]).toEqual([o[0], o[1]]);
    expect([at('views').value, at('views').previous]).toEqual([o[2], o[3]]);
    expect([at('sessions').value, at('sessions').previous]).toEqual([o[4], o[5]]);
    expect(at('session duration').value).toBeCloseTo(o[6] as number, 6);
    expect(at('session duration').previous).toBeCloseTo(o[7] as number, 6);
    expect(at('bounce rate').value).toBeCloseTo((o[8] as number) * 100, 6);
    expect(at('bounce rate').previous).toBeCloseTo((o[9] as number) * 100, 6);
    expect(at('views').changeFromPreviousPct).toBe(
      Math.round((100 * ((o[2] as number) - (o[3] as number))) / (o[3] as number)),
    );
    expect(o[4]).toBeGreaterThan(5);
    expect(o[5]).toBeGreaterThan(5);
    expect(out.dateFrom).toBe('2025-06-10 00:00:00');
  });

  it('has no previous values without a comparison, and filters by event properties', async () => {
    const [row] = await hogql(
      `SELECT uniqIf(pid, ${cur}), countIf(${cur}) FROM (${SESSIONS.replace(
        "FROM events WHERE $session_id != ''",
        "FROM events WHERE $session_id != '' AND properties.$browser = 'Firefox'",
      )})`,
    );
    const out = await web({
      kind: 'WebOverviewQuery',
      dateRange: RANGE,
      properties: [{ key: '$browser', value: ['Firefox'], operator: 'exact', type: 'event' }],
    });
    const items = out.results as unknown as { key: string; value: number; previous: number | null }[];
    expect(items.every((i) => i.previous === null)).toBe(true);
    expect(items[0]!.value).toBe(Number((row as unknown[])[0]));
    expect(items[2]!.value).toBe(Number((row as unknown[])[1]));
  });
});

describe('WebOverviewQuery with a conversion goal', () => {
  it('a custom event and an action on it give the hand-written numbers', async () => {
    const w = `timestamp >= ${PREV[0]} AND timestamp < ${CUR[1]}`;
    const [row] =
      await hogql(`SELECT uniqIf(pid, ${cur}), uniqIf(pid, ${prev}), sumIf(conv, ${cur}), sumIf(conv, ${prev}),
        uniqIf(cpid, ${cur} AND conv > 0), uniqIf(cpid, ${prev} AND conv > 0)
      FROM (SELECT $session_id AS sid, min(timestamp) AS s_start,
          anyIf(person_id, event IN ('$pageview', '$screen', 'signed_up') AND ${w}) AS pid,
          anyIf(person_id, event = 'signed_up' AND ${w}) AS cpid,
          countIf(event = 'signed_up' AND ${w}) AS conv,
          countIf(event IN ('$pageview', '$screen', 'signed_up') AND ${w}) AS n
        FROM events WHERE $session_id != '' GROUP BY sid HAVING n > 0)`);
    const o = (row as unknown[]).map(Number);
    const res = await h.request('POST', `/api/projects/${project}/actions/`, {
      body: { name: 'Signed up', steps: [{ event: 'signed_up' }] },
    });
    expect(res.statusCode).toBe(201);
    const actionId = res.json().id as number;
    for (const conversionGoal of [{ customEventName: 'signed_up' }, { actionId }]) {
      const out = await web({
        kind: 'WebOverviewQuery',
        dateRange: RANGE,
        properties: [],
        compareFilter: { compare: true },
        conversionGoal,
      });
      const items = out.results as unknown as { key: string; value: number; previous: number }[];
      expect(items.map((i) => i.key)).toEqual([
        'visitors',
        'total conversions',
        'unique conversions',
        'conversion rate',
      ]);
      expect(items.slice(0, 3).map((i) => [i.value, i.previous])).toEqual([
        [o[0], o[1]],
        [o[2], o[3]],
        [o[4], o[5]],
      ]);
      expect(items[3]!.value).toBeCloseTo((100 * (o[4] as number)) / (o[0] as number), 6);
      expect(o[2]).toBeGreaterThan(0);
    }
    const missing = await query(h, project, {
      kind: 'WebOverviewQuery',
      properties: [],
      conversionGoal: { actionId: 987654 },
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'invalid_input', attr: 'query__conversionGoal__actionId' });
  });
});

describe('WebStatsTableQuery', () => {
  it('Page: visitors, views and bounce rate per path equal the hand-written HogQL', async () => {
    const oracle =
      await hogql(`SELECT path, uniqIf(pid, ${cur}), uniqIf(pid, ${prev}), sumIf(n, ${cur}), sumIf(n, ${prev}), avgIf(bounced, ${cur}), avgIf(bounced, ${prev})
      FROM (SELECT e.path AS path, e.n AS n, s.pid AS pid, s.s_start AS s_start, s.bounced AS bounced
        FROM (SELECT $session_id AS sid, properties.$pathname AS path, count() AS n FROM events
              WHERE event IN ('$pageview', '$screen') AND timestamp >= ${PREV[0]} AND timestamp < ${CUR[1]} GROUP BY sid, path) AS e
        JOIN (${SESSIONS}) AS s ON e.sid = s.sid)
      WHERE (${cur}) OR (${prev})
      GROUP BY path HAVING uniqIf(pid, ${cur}) > 0 ORDER BY path`);
    const out = await web({
      kind: 'WebStatsTableQuery',
      breakdownBy: 'Page',
      dateRange: RANGE,
      properties: [],
      compareFilter: { compare: true },
      includeBounceRate: true,
      limit: 50,
    });
    expect(out.columns).toEqual([
      'context.columns.breakdown_value',
      'context.columns.visitors',
      'context.columns.views',
      'context.columns.bounce_rate',
    ]);
    const got = [...out.results].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(got.map((r) => r[0])).toEqual(oracle.map((r) => r[0]));
    got.forEach((r, i) => {
      const o = (oracle[i] as unknown[]).map((v) => (v === null ? null : Number(v)));
      expect(r[1]).toEqual([o[1], o[2]]);
      expect(r[2]).toEqual([o[3], o[4]]);
      const b = r[3] as [number | null, number | null];
      expect(b[0]).toBeCloseTo(o[5] as number, 6);
      if (o[6] === null || Number.isNaN(o[6])) expect(b[1]).toBeNull();
      else expect(b[1]).toBeCloseTo(o[6] as number, 6);
    });
    // Ordered by visitors, then views.
    const visitors = out.results.map((r) => (r[1] as number[])[0] as number);
    expect([...visitors].sort((a, b) => b - a)).toEqual(visitors);
  });

  it.each([
    ['InitialReferringDomain', 'argMin(properties.$referring_domain, timestamp)'],
    ['Browser', null],
    ['InitialPage', 'argMin(properties.$pathname, timestamp)'],
  ])('%s: visitors per value equal the hand-written HogQL', async (breakdownBy, sessionExpr) => {
    const oracle = sessionExpr
      ? await hogql(`SELECT v, uniq(pid) FROM (SELECT $session_id AS sid, ${sessionExpr} AS v, min(timestamp) AS s_start,
            anyIf(person_id, event IN ('$pageview', '$screen')) AS pid,
            countIf(event IN ('$pageview', '$screen') AND timestamp >= ${CUR[0]} AND timestamp < ${CUR[1]}) AS vin
          FROM events WHERE $session_id != '' GROUP BY sid HAVING vin > 0 AND ${cur}) GROUP BY v ORDER BY v`)
      : await hogql(`SELECT properties.$browser AS v, uniq(person_id) FROM events
          WHERE event = '$pageview' AND $session_id IN (SELECT sid FROM (${SESSIONS}) WHERE ${cur}) AND timestamp < ${CUR[1]}
          GROUP BY v ORDER BY v`);
    const out = await web({ kind: 'WebStatsTableQuery', breakdownBy, dateRange: RANGE, properties: [] });
    const got = out.results
      .map((r) => [r[0], (r[1] as number[])[0]])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(got).toEqual(oracle.map((r) => [r[0], Number(r[1])]));
  });

  it('limits with hasMore and orders by views ascending on request', async () => {
    const out = await web({
      kind: 'WebStatsTableQuery',
      breakdownBy: 'Page',
      dateRange: RANGE,
      properties: [],
      orderBy: ['Views', 'ASC'],
      limit: 2,
    });
    expect(out.results).toHaveLength(2);
    expect(out.hasMore).toBe(true);
    const views = out.results.map((r) => (r[2] as number[])[0] as number);
    expect(views[0]).toBeLessThanOrEqual(views[1] as number);
  });

  it('InitialChannelType uses $channel_type, which equals the rules on every session', async () => {
    const rows = await hogql(
      `SELECT session_id, $channel_type, $entry_referring_domain, $entry_utm_source, $entry_utm_medium, $entry_utm_campaign FROM sessions`,
    );
    expect(rows.length).toBeGreaterThan(50);
    for (const r of rows) {
      const [, got, referringDomain, utmSource, utmMedium, utmCampaign] = r as (string | null)[];
      expect(got).toBe(channelType({ referringDomain, utmSource, utmMedium, utmCampaign }));
    }
    const out = await web({
      kind: 'WebStatsTableQuery',
      breakdownBy: 'InitialChannelType',
      dateRange: RANGE,
      properties: [],
    });
    expect(out.results.map((r) => r[0])).toEqual(
      expect.arrayContaining(['Direct', 'Organic Search', 'Organic Social', 'Referral']),
    );
    const direct = out.results.find((r) => r[0] === 'Direct') as unknown[];
    const filtered = await web({
      kind: 'WebStatsTableQuery',
      breakdownBy: 'InitialChannelType',
      dateRange: RANGE,
      properties: [{ key: '$channel_type', value: ['Direct'], operator: 'exact', type: 'session' }],
    });
    expect(filtered.results).toEqual([direct]);
  });

  it('$channel_type in HogQL matches the hand-labelled cases', async () => {
    const cases = CASES.filter(
      ([c]) => !c.hasGclid && !c.hasFbclid && !c.gadSource && c.referringDomain != null,
    );
    const events = cases.map(([c], i) => ({
      event: '$pageview',
      distinct_id: 'channel',
      timestamp: new Date(Date.parse('2025-06-01T00:00:00Z') + i * 1000).toISOString(),
      uuid: uuid(),
      properties: {
        $session_id: `channel-${i}`,
        $pathname: '/',
        $current_url: 'https://site.example/',
        $referring_domain: c.referringDomain,
        ...(c.utmSource != null ? { utm_source: c.utmSource } : {}),
        ...(c.utmMedium != null ? { utm_medium: c.utmMedium } : {}),
        ...(c.utmCampaign != null ? { utm_campaign: c.utmCampaign } : {}),
      },
    }));
    await capture(h, h.boot.project_api_key, project, events);
    const rows = await hogql(
      `SELECT session_id, $channel_type FROM sessions WHERE session_id LIKE 'channel-%'`,
    );
    const got = new Map(rows.map((r) => [r[0], r[1]]));
    cases.forEach(([c, label], i) => {
      expect([c, got.get(`channel-${i}`)]).toEqual([c, label]);
    });
  });
});

describe('WebExternalClicksTableQuery', () => {
  it('visitors and clicks per outbound URL equal the hand-written HogQL', async () => {
    const oracle =
      await hogql(`SELECT u, uniqIf(pid, ${cur}), uniqIf(pid, ${prev}), sumIf(c, ${cur}), sumIf(c, ${prev})
      FROM (SELECT e.u AS u, e.c AS c, e.pid AS pid, s.s_start AS s_start
        FROM (SELECT $session_id AS sid, cutQueryStringAndFragment(properties.$external_click_url) AS u, count() AS c,
                any(person_id) AS pid
              FROM events WHERE event = '$autocapture' AND properties.$event_type = 'click'
                AND timestamp >= ${PREV[0]} AND timestamp < ${CUR[1]} GROUP BY sid, u) AS e
        JOIN (SELECT $session_id AS sid, min(timestamp) AS s_start FROM events GROUP BY sid) AS s ON e.sid = s.sid)
      GROUP BY u HAVING uniqIf(pid, ${cur}) > 0 ORDER BY u`);
    const out = await web({
      kind: 'WebExternalClicksTableQuery',
      dateRange: RANGE,
      properties: [],
      compareFilter: { compare: true },
      stripQueryParams: true,
    });
    expect(out.columns).toEqual([
      'context.columns.url',
      'context.columns.visitors',
      'context.columns.clicks',
    ]);
    const got = [...out.results].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(got).toEqual(
      oracle.map((r) => [r[0], [Number(r[1]), Number(r[2])], [Number(r[3]), Number(r[4])]]),
    );
    expect(got.length).toBe(2);
  });
});

describe('bad input', () => {
  it.each([
    [{ kind: 'WebStatsTableQuery', breakdownBy: 'Tomato', properties: [] }, 'query__breakdownBy'],
    [{ kind: 'WebStatsTableQuery', properties: [] }, 'query__breakdownBy'],
    [{ kind: 'WebStatsTableQuery', breakdownBy: 'Page', properties: [], limit: -1 }, 'query__limit'],
    [
      { kind: 'WebStatsTableQuery', breakdownBy: 'Page', properties: [], orderBy: ['Nope', 'DESC'] },
      'query__orderBy',
    ],
    [{ kind: 'WebOverviewQuery', properties: [], dateRange: 'yesterday' }, 'query__dateRange'],
    [{ kind: 'WebOverviewQuery', properties: [], conversionGoal: {} }, 'query__conversionGoal'],
    [
      { kind: 'WebOverviewQuery', properties: [], conversionGoal: { customEventName: 7 } },
      'query__conversionGoal__customEventName',
    ],
  ])('%j is a 400 in PostHog shape', async (node, attr) => {
    const res = await query(h, project, node);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ type: 'validation_error', code: 'invalid_input', attr });
  });
});
