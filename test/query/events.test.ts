import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEvents } from '../helpers/events-insert.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, ok, otherProject, query, type RawEvent, uuid } from '../helpers/query-lists.js';

/** EventsQuery through POST /query on real stores, with events sent through /batch/. */
const NOW = new Date('2025-06-15T12:00:00.000Z');
let clock = NOW;
const CHAIN =
  'a.btn.primary:attr__data-x="1"href="/x"nth-child="1"text="Say \\"hi\\"";div:nth-child="2"nth-of-type="1"';

let h: Harness;
let project: number;
let other: Awaited<ReturnType<typeof otherProject>>;

const ev = (
  event: string,
  distinct_id: string,
  timestamp: string,
  properties: Record<string, unknown> = {},
): RawEvent => ({
  event,
  distinct_id,
  timestamp,
  uuid: uuid(),
  properties,
});

const BULK = Array.from({ length: 25 }, (_, i) =>
  ev('bulk', 'bulk-user', new Date(Date.parse('2025-06-15T06:00:00Z') + i * 60_000).toISOString(), { i }),
);

beforeAll(async () => {
  h = await startHarness({}, { now: () => clock });
  project = h.boot.project_id;
  other = await otherProject(h);
  await capture(h, h.boot.project_api_key, project, [
    ev('$pageview', 'd1', '2025-06-15T10:00:00.250Z', {
      $browser: 'Chrome',
      $set: { email: 'ann@example.com' },
      $elements_chain: CHAIN,
    }),
    ev('$pageview', 'd1', '2025-06-15T09:00:00Z', { $browser: 'Firefox' }),
    ev('signup', 'd2', '2025-06-15T11:00:00Z', { plan: 'pro', $set: { name: 'Bob' } }),
    ev('$pageview', 'd2', '2025-06-13T12:00:00Z', { $browser: 'Safari' }),
    ev('$pageview', 'anon', '2025-06-15T11:30:00Z', { $process_person_profile: false, $browser: 'Chrome' }),
    ev('$pageview', 'd3', '2025-06-15T12:00:03Z', { note: 'slightly ahead' }),
    ev('$pageview', 'd3', '2025-06-15T12:00:30Z', { note: 'too far ahead' }),
    ...BULK,
  ]);
  // A distinct id no person owns (imported history): capture always creates a person.
  await insertEvents(h.stores.events, [
    {
      uuid: uuid(),
      event: 'imported',
      properties: '{}',
      timestamp: '2025-06-15 11:45:00.000000',
      team_id: project,
      distinct_id: 'ghost',
    },
  ]);
  await capture(
    h,
    other.token,
    other.projectId,
    [ev('$pageview', 'd1', '2025-06-15T10:30:00Z', { $browser: 'Chrome', secret: 'SECRET' })],
    other.key,
  );
});
afterAll(async () => h?.close());

const events = (node: Record<string, unknown>) => ok(h, project, { kind: 'EventsQuery', ...node });
const notBulk = ["event NOT IN ('bulk', 'imported')"];

describe('EventsQuery columns and order', () => {
  it('orders by timestamp DESC when selected and windows the last 24 hours up to now + 5 s', async () => {
    const out = await events({ select: ['event', 'distinct_id', 'timestamp'], where: notBulk });
    expect(out.results).toEqual([
      ['$pageview', 'd3', '2025-06-15T12:00:03Z'],
      ['$pageview', 'anon', '2025-06-15T11:30:00Z'],
      ['signup', 'd2', '2025-06-15T11:00:00Z'],
      ['$pageview', 'd1', '2025-06-15T10:00:00.250000Z'],
      ['$pageview', 'd1', '2025-06-15T09:00:00Z'],
    ]);
    expect(out.columns).toEqual(['event', 'distinct_id', 'timestamp']);
    expect(out.types).toEqual(['String', 'String', "DateTime64(6, 'UTC')"]);
    expect(out).toMatchObject({ hasMore: false, limit: 100, offset: 0 });
    expect(out.hogql).toContain('ORDER BY timestamp DESC LIMIT 101 OFFSET 0');
    expect(out.modifiers).toMatchObject({ convertToProjectTimezone: true });
  });

  it('orders by the first column ASC when no time or aggregate is selected', async () => {
    const out = await events({ select: ['distinct_id'], where: notBulk });
    expect(out.results.map((r) => r[0])).toEqual(['anon', 'd1', 'd1', 'd2', 'd3']);
  });

  it('groups by the other columns when any column aggregates, ordering by count() DESC', async () => {
    const out = await events({ select: ['event', 'count()'], where: notBulk });
    expect(out.results).toEqual([
      ['$pageview', 4],
      ['signup', 1],
    ]);
    expect(out.types).toEqual(['String', 'UInt64']);
    expect(out.hogql).toContain('GROUP BY event ORDER BY count() DESC');
  });

  it('orders by the first aggregate DESC without count(), and names aliased columns by the alias', async () => {
    const out = await events({ select: ['distinct_id', 'max(timestamp) AS last_seen'], where: notBulk });
    expect(out.columns).toEqual(['distinct_id', 'last_seen']);
    expect(out.results.map((r) => r[0])).toEqual(['d3', 'anon', 'd2', 'd1']);
    expect(out.results[0]).toEqual(['d3', '2025-06-15T12:00:03Z']);
  });

  it('moves where-expressions with aggregations to HAVING', async () => {
    const out = await events({ select: ['distinct_id', 'count()'], where: ['count() > 1', ...notBulk] });
    expect(out.results).toEqual([['d1', 2]]);
    expect(out.hogql).toMatch(/WHERE .*event NOT IN .* GROUP BY distinct_id HAVING count\(\) > 1/);
  });

  it('applies orderBy strings as given', async () => {
    const out = await events({
      select: ['event', 'properties.$browser', 'timestamp'],
      where: notBulk,
      orderBy: ['event DESC -- names backwards', 'timestamp ASC'],
    });
    expect(out.results.map((r) => [r[0], r[1]])).toEqual([
      ['signup', null],
      ['$pageview', 'Firefox'],
      ['$pageview', 'Chrome'],
      ['$pageview', 'Chrome'],
      ['$pageview', null],
    ]);
  });

  it('returns * as an event object with parsed properties and the elements of the chain', async () => {
    const out = await events({
      select: ['*'],
      where: ["distinct_id = 'd1'", "properties.$browser = 'Chrome'"],
    });
    expect(out.columns).toEqual(['*']);
    const row = out.results[0]?.[0] as Record<string, unknown>;
    expect(Object.keys(row)).toEqual([
      'uuid',
      'event',
      'properties',
      'timestamp',
      'team_id',
      'distinct_id',
      'elements_chain',
      'created_at',
      'elements',
    ]);
    expect(row).toMatchObject({
      event: '$pageview',
      distinct_id: 'd1',
      team_id: project,
      timestamp: '2025-06-15T10:00:00.250000Z',
      elements_chain: CHAIN,
      properties: { $browser: 'Chrome', $set: { email: 'ann@example.com' } },
    });
    expect(row.elements).toEqual([
      {
        event: null,
        text: 'Say "hi"',
        tag_name: 'a',
        attr_class: ['btn', 'primary'],
        href: '/x',
        attr_id: null,
        nth_child: 1,
        nth_of_type: null,
        attributes: { 'attr__data-x': '1' },
        order: 0,
      },
      {
        event: null,
        text: null,
        tag_name: 'div',
        attr_class: null,
        href: null,
        attr_id: null,
        nth_child: 2,
        nth_of_type: 1,
        attributes: {},
        order: 1,
      },
    ]);
    // An empty select means `*`; events without a chain have no `elements`.
    const all = await events({ select: [], where: ["event = 'signup'"] });
    expect(all.columns).toEqual(['*']);
    expect(all.results[0]?.[0]).not.toHaveProperty('elements');
  });

  it('returns person as the person object, or only the distinct id when no person has it', async () => {
    const out = await events({
      select: ['person -- Person', 'person_display_name', 'event'],
      where: ["distinct_id IN ('d1', 'anon', 'ghost')"],
      orderBy: ['timestamp DESC'],
    });
    expect(out.columns).toEqual(['person -- Person', 'person_display_name', 'event']);
    const [ghost, anon, d1] = out.results;
    expect(ghost?.[0]).toEqual({ distinct_id: 'ghost' });
    expect(ghost?.[1]).toMatchObject({ display_name: 'ghost' });
    // A personless event (`$process_person_profile: false`) has no person, as in PostHog: shown by
    // its distinct id, like one no person owns.
    expect(anon?.[0]).toEqual({ distinct_id: 'anon' });
    expect(anon?.[1]).toEqual({ ...(ghost?.[1] as object), display_name: 'anon' });
    const person = d1?.[0] as Record<string, unknown>;
    expect(person).toMatchObject({ distinct_id: 'd1', properties: { email: 'ann@example.com' } });
    expect(Object.keys(person).sort()).toEqual(['created_at', 'distinct_id', 'properties', 'uuid']);
    expect(person.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(person.created_at).toMatch(/^2025-06-15T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(d1?.[1]).toEqual({ display_name: 'ann@example.com', id: person.uuid });
  });
});

describe('EventsQuery filters', () => {
  const names = async (node: Record<string, unknown>) =>
    (
      await events({ select: ['event', 'distinct_id'], orderBy: ['timestamp ASC'], where: notBulk, ...node })
    ).results.map((r) => `${r[0]}/${r[1]}`);

  it('filters by event, event/person/HogQL property filters and fixedProperties', async () => {
    expect(await names({ event: 'signup' })).toEqual(['signup/d2']);
    expect(
      await names({ properties: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }] }),
    ).toEqual(['$pageview/d1', '$pageview/anon']);
    expect(
      await names({ properties: [{ key: 'email', value: 'ann@', operator: 'icontains', type: 'person' }] }),
    ).toEqual(['$pageview/d1', '$pageview/d1']);
    expect(await names({ properties: [{ type: 'hogql', key: "properties.plan = 'pro'" }] })).toEqual([
      'signup/d2',
    ]);
    expect(
      await names({
        properties: {
          type: 'OR',
          values: [
            { key: 'plan', value: 'pro' },
            { key: '$browser', value: 'Firefox' },
          ],
        },
        fixedProperties: [{ type: 'hogql', key: "distinct_id != 'd2'" }],
      }),
    ).toEqual(['$pageview/d1']);
  });

  it("applies the project's test-account filters with filterTestAccounts", async () => {
    const set = await h.request('PATCH', `/api/projects/${project}/`, {
      body: {
        test_account_filters: [
          { key: 'email', value: '@example.com', operator: 'not_icontains', type: 'person' },
        ],
      },
    });
    expect(set.statusCode).toBe(200);
    expect(await names({ filterTestAccounts: true })).toEqual([
      'signup/d2',
      '$pageview/anon',
      '$pageview/d3',
    ]);
    expect(await names({ filterTestAccounts: false })).toHaveLength(5);
  });

  it('filters by personId: every event of the person', async () => {
    const out = await events({ select: ['person'], where: ["distinct_id = 'd1'"], limit: 1 });
    const personId = (out.results[0]![0] as { uuid: string }).uuid;
    expect(await names({ personId })).toEqual(['$pageview/d1', '$pageview/d1']);
    expect(await names({ personId: '00000000-0000-4000-8000-000000000000' })).toEqual([]);
  });

  it('reads after/before as relative or ISO dates; "all" removes the lower bound; both are exclusive', async () => {
    expect(await names({ after: 'all', event: '$pageview', where: ["distinct_id = 'd2'"] })).toEqual([
      '$pageview/d2',
    ]);
    expect(await names({ after: '-7d', where: ["distinct_id = 'd2'"] })).toEqual([
      '$pageview/d2',
      'signup/d2',
    ]);
    expect(await names({ before: '-1h', where: ["distinct_id = 'd1'"] })).toEqual([
      '$pageview/d1',
      '$pageview/d1',
    ]);
    expect(await names({ before: '-2h' })).toEqual(['$pageview/d1']);
    // Millisecond precision: the list's "load newer" passes the last timestamp seen.
    expect(await names({ after: '2025-06-15T10:00:00.250Z', before: '2025-06-15T11:00:00Z' })).toEqual([]);
    expect(await names({ after: '2025-06-15T10:00:00.249Z', before: '2025-06-15T11:00:00.001Z' })).toEqual([
      '$pageview/d1',
      'signup/d2',
    ]);
    expect(await names({ before: '2025-06-15T12:01:00Z' })).toContain('$pageview/d3');
    expect(
      (await names({ before: '2025-06-15T12:01:00Z' })).filter((n) => n === '$pageview/d3'),
    ).toHaveLength(2);
  });

  it('reads dates without an offset in the project timezone and returns times in it', async () => {
    const tz = await h.request('PATCH', `/api/projects/${other.projectId}/`, {
      key: other.key,
      body: { timezone: 'America/New_York' },
    });
    expect(tz.statusCode).toBe(200);
    const base = { kind: 'EventsQuery', select: ['event', 'timestamp'] };
    // 10:30Z is 06:30 in New York (EDT, UTC-4).
    const inside = await ok(
      h,
      other.projectId,
      { ...base, after: '2025-06-15T06:29:00', before: '2025-06-15T06:31:00' },
      other.key,
    );
    expect(inside.results).toEqual([['$pageview', '2025-06-15T06:30:00-04:00']]);
    const outside = await ok(
      h,
      other.projectId,
      { ...base, after: '2025-06-15T10:29:00', before: '2025-06-15T10:31:00' },
      other.key,
    );
    expect(outside.results).toEqual([]);
  });
});

describe('EventsQuery pagination', () => {
  it('pages with limit/offset and says whether more rows exist', async () => {
    const page = (limit: number, offset?: number) =>
      events({
        select: ['properties.i'],
        event: 'bulk',
        orderBy: ['timestamp ASC'],
        limit,
        ...(offset ? { offset } : {}),
      });
    const first = await page(10);
    expect(first).toMatchObject({ hasMore: true, limit: 10, offset: 0 });
    expect(first.hogql).toContain('LIMIT 11 OFFSET 0');
    const second = await page(10, 10);
    const last = await page(10, 20);
    expect(second).toMatchObject({ hasMore: true, limit: 10, offset: 10 });
    expect(last).toMatchObject({ hasMore: false, limit: 10, offset: 20 });
    const seen = [...first.results, ...second.results, ...last.results].map((r) => Number(r[0]));
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => i));
    expect((await page(25)).hasMore).toBe(false);
  });

  it('uses the default page for a missing or non-positive limit and caps large ones', async () => {
    expect(await events({ select: ['event'], limit: 0 })).toMatchObject({ limit: 100, offset: 0 });
    expect(await events({ select: ['event'], limit: 1_000_000, offset: -5 })).toMatchObject({
      limit: 50_000,
      offset: 0,
    });
  });
});

describe('EventsQuery isolation and errors', () => {
  it("never shows another project's events, and keeps values out of the SQL", async () => {
    const mine = await events({
      select: ['event', 'properties.secret'],
      where: ["distinct_id = 'd1'"],
      after: 'all',
    });
    expect(mine.results).toHaveLength(2);
    expect(JSON.stringify(mine.results)).not.toContain('SECRET');
    const theirs = await ok(
      h,
      other.projectId,
      { kind: 'EventsQuery', select: ['distinct_id', 'properties.secret'], after: 'all' },
      other.key,
    );
    expect(theirs.results).toEqual([['d1', 'SECRET']]);
    const tricky = await events({ select: ['event'], event: "x' OR 1=1 --" });
    expect(tricky.results).toEqual([]);
    expect(tricky.clickhouse).not.toContain('OR 1=1');
    const foreign = await query(h, other.projectId, { kind: 'EventsQuery', select: ['event'] });
    expect([403, 404]).toContain(foreign.statusCode);
  });

  it('answers bad HogQL in select, where and orderBy with 400 validation_error', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ select: ['event', 'count('] }, /.+/],
      [{ select: ['nope_column'] }, /Unable to resolve field: nope_column/],
      [{ select: ['event'], where: ['no_such_fn(event)'] }, /Unsupported function call 'no_such_fn/],
      [{ select: ['event'], where: ['event ='] }, /.+/],
      [
        { select: ['event'], orderBy: ['timestamp DESC DESC'] },
        /Unexpected input after the order expression: DESC/,
      ],
      [{ select: ['event'], orderBy: ['event ='] }, /Unexpected/],
      [{ select: ['event'], orderBy: ['(('] }, /.+/],
      [{ select: ['event'], orderBy: ['missing_field ASC'] }, /Unable to resolve field: missing_field/],
    ];
    for (const [node, detail] of cases) {
      const res = await query(h, project, { kind: 'EventsQuery', ...node });
      expect(res.statusCode, JSON.stringify(node)).toBe(400);
      const body = res.json();
      expect(body).toMatchObject({ type: 'validation_error', code: 'invalid', attr: null });
      expect(body.detail).toMatch(detail);
    }
  });

  it('answers malformed nodes with 400 before running anything', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'query__select'],
      [{ select: 'event' }, 'query__select'],
      [{ select: [1] }, 'query__select__0'],
      [{ select: ['event'], where: 'x' }, 'query__where'],
      [{ select: ['event'], limit: 'ten' }, 'query__limit'],
      [{ select: ['event'], limit: 1.5 }, 'query__limit'],
      [{ select: ['event'], personId: 'not-a-uuid' }, 'query__personId'],
      [{ select: ['event'], properties: ['x'] }, 'query__properties__0'],
      [{ select: ['event'], actionId: 3 }, 'query__actionId'],
    ];
    for (const [node, attr] of cases) {
      const res = await query(h, project, { kind: 'EventsQuery', ...node });
      expect(res.statusCode, JSON.stringify(node)).toBe(400);
      expect(res.json()).toMatchObject({ type: 'validation_error', attr });
    }
    const badDate = await query(h, project, {
      kind: 'EventsQuery',
      select: ['event'],
      after: 'yesterday-ish',
    });
    expect(badDate.statusCode).toBe(400);
    expect(badDate.json()).toMatchObject({ type: 'validation_error', attr: 'query__after' });
    const badFilter = await query(h, project, {
      kind: 'EventsQuery',
      select: ['event'],
      properties: [{ key: '$browser', operator: 'nonsense', value: 'x' }],
    });
    expect(badFilter.statusCode).toBe(400);
    expect(badFilter.json()).toMatchObject({ type: 'validation_error', code: 'invalid' });
  });

  it('goes through the cache with minute staleness, except for lists that end in the past', async () => {
    const live = { kind: 'EventsQuery', select: ['event', 'count()'], where: ["event = 'signup'"] };
    const past = { ...live, before: '2025-06-15T11:30:00Z' };
    for (const node of [live, past]) {
      expect((await query(h, project, node, h.key, { refresh: 'blocking' })).json().is_cached).toBe(false);
      const again = (await query(h, project, node, h.key, { refresh: 'blocking' })).json();
      expect(again).toMatchObject({ is_cached: true, results: [['signup', 1]] });
    }
    expect((await query(h, project, live, h.key, { refresh: 'blocking' })).json().cache_target_age).toBe(
      '2025-06-15T12:05:00Z',
    );
    clock = new Date(NOW.getTime() + 60 * 60_000);
    try {
      expect((await query(h, project, live, h.key, { refresh: 'blocking' })).json().is_cached).toBe(false);
      expect((await query(h, project, past, h.key, { refresh: 'blocking' })).json().is_cached).toBe(true);
    } finally {
      clock = NOW;
    }
  });
});
