import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, otherProject, query, uuid } from '../helpers/query-lists.js';

/** Saved insights through HTTP: wrapping, refresh modes shared with /query, list filters, bad input. */
let h: Harness;
let project: number;
let base: string;

const NOW = new Date('2024-03-10T12:00:00Z');
const hogql = (q: string) => ({ kind: 'HogQLQuery', query: q });
const trends = {
  kind: 'TrendsQuery',
  dateRange: { date_from: '2024-03-01', date_to: '2024-03-10' },
  series: [{ kind: 'EventsNode', event: 'signup', math: 'total' }],
  interval: 'day',
};

beforeAll(async () => {
  h = await startHarness({}, { now: () => NOW });
  project = h.boot.project_id;
  base = `/api/projects/${project}/insights/`;
  const at = (d: number) => `2024-03-0${d}T10:00:00Z`;
  await capture(h, h.boot.project_api_key, project, [
    { event: 'signup', distinct_id: 'a', timestamp: at(2), uuid: uuid(), properties: { plan: 'free' } },
    { event: 'signup', distinct_id: 'b', timestamp: at(3), uuid: uuid(), properties: { plan: 'pro' } },
    { event: 'signup', distinct_id: 'c', timestamp: at(3), uuid: uuid(), properties: { plan: 'pro' } },
    { event: 'pageview', distinct_id: 'a', timestamp: at(4), uuid: uuid(), properties: { plan: 'free' } },
  ]);
}, 60_000);
afterAll(async () => h?.close());

const create = (body: Record<string, unknown>, key = h.key) => h.request('POST', base, { key, body });

describe('creating insights', () => {
  it('wraps bare nodes as PostHog does and answers no result until one is calculated', async () => {
    const res = await create({ name: 'Signups', query: trends, tags: [' Growth ', 'growth'] });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.short_id).toMatch(/^[A-Za-z0-9]{8}$/);
    expect(body.query).toEqual({ kind: 'InsightVizNode', source: trends });
    expect(body).toMatchObject({
      name: 'Signups',
      saved: false,
      favorited: false,
      deleted: false,
      tags: ['growth'],
      result: null,
      last_refresh: null,
      is_cached: false,
      filters: {},
      dashboards: [],
    });
    expect(body.created_by.email).toBeTruthy();

    const sql = await create({ query: hogql('SELECT 1') });
    expect(sql.json().query.kind).toBe('DataVisualizationNode');
    const list = await create({ query: { kind: 'EventsQuery', select: ['event'] } });
    expect(list.json().query.kind).toBe('DataTableNode');
    const wrapped = { kind: 'DataTableNode', source: hogql('SELECT 2') };
    expect((await create({ query: wrapped })).json().query).toEqual(wrapped);
  });

  it('refuses bad input with DRF-shaped 400s', async () => {
    const cases: [Record<string, unknown>, string | null][] = [
      [{ query: 'SELECT 1' }, 'query'],
      [{ query: { kind: 'NoSuchQuery' } }, 'query'],
      [{ query: { kind: 'TrendsQuery', series: 'x' } }, null],
      [{ query: trends, name: 'x'.repeat(401) }, 'name'],
      [{ query: trends, filters: { events: [{ id: 'x' }] } }, 'filters'],
      [{ query: trends, dashboards: [999_999] }, 'dashboards'],
      [{ query: trends, tags: 'growth' }, 'tags'],
      [{ query: { kind: 'TrendsQuery', series: [{ kind: 'ActionsNode', id: 987654 }] } }, null],
    ];
    for (const [body, attr] of cases) {
      const res = await create(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      const err = res.json();
      expect(err.type).toBe('validation_error');
      if (attr) expect(String(err.attr)).toContain(attr);
    }
    // As in PostHog, SQL is not parsed on save; running it answers the syntax error.
    const bad = (await create({ query: hogql('SELEKT') })).json();
    const run = await h.request('GET', `${base}${bad.id}/?refresh=blocking`);
    expect(run.statusCode).toBe(400);
    expect(run.json().type).toBe('validation_error');
    const deep: Record<string, unknown> = {};
    let cur = deep;
    for (let i = 0; i < 60; i++) {
      const next: Record<string, unknown> = {};
      cur.x = next;
      cur = next;
    }
    expect((await create({ query: { kind: 'HogQLQuery', query: 'SELECT 1', x: deep } })).statusCode).toBe(
      400,
    );
  });
});

describe('results and refresh modes', () => {
  it('calculates on refresh=blocking, then serves the same cache as /query', async () => {
    const q = hogql("SELECT event, count() FROM events WHERE event = 'signup' GROUP BY event");
    const id = (await create({ name: 'count', query: q })).json().id;
    const cold = (await h.request('GET', `${base}${id}/`)).json();
    expect(cold).toMatchObject({ result: null, is_cached: false, last_refresh: null });

    const fresh = (await h.request('GET', `${base}${id}/?refresh=blocking`)).json();
    expect(fresh.result).toEqual([['signup', 3]]);
    expect(fresh.is_cached).toBe(false);
    expect(fresh.last_refresh).toBeTruthy();
    expect(fresh.columns).toEqual(['event', 'count()']);

    const cached = (await h.request('GET', `${base}${id}/`)).json();
    expect(cached.result).toEqual([['signup', 3]]);
    expect(cached.is_cached).toBe(true);

    // The insight and /query share one cache entry.
    const viaQuery = (await query(h, project, q, h.key, { refresh: 'force_cache' })).json();
    expect(viaQuery.is_cached).toBe(true);
    expect(viaQuery.results).toEqual([['signup', 3]]);

    // true means force_blocking: always calculated.
    const forced = (await h.request('GET', `${base}${id}/?refresh=true`)).json();
    expect(forced.is_cached).toBe(false);
  });

  it('runs async refreshes in the background with a query_status', async () => {
    const q = hogql("SELECT count() FROM events WHERE event = 'pageview'");
    const id = (await create({ query: q })).json().id;
    const started = await h.request('GET', `${base}${id}/?refresh=force_async`);
    expect(started.statusCode).toBe(200);
    const status = started.json().query_status;
    expect(status).toMatchObject({ insight_id: id, team_id: project });
    let body = started.json();
    for (let i = 0; i < 100 && !body.result; i++) {
      await new Promise((r) => setTimeout(r, 50));
      body = (await h.request('GET', `${base}${id}/`)).json();
    }
    expect(body.result).toEqual([[1]]);
  });

  it('calculates trends through the same runners', async () => {
    const id = (await create({ query: trends })).json().id;
    const body = (await h.request('GET', `${base}${id}/?refresh=blocking`)).json();
    expect(body.result[0].count).toBe(3);
    expect(body.result[0].data.slice(0, 3)).toEqual([0, 1, 2]);
  });

  it('refuses unknown refresh values', async () => {
    const id = (await create({ query: trends })).json().id;
    const res = await h.request('GET', `${base}${id}/?refresh=sometimes`);
    expect(res.statusCode).toBe(400);
    expect(res.json().attr).toBe('refresh');
  });
});

describe('listing, changing and deleting', () => {
  it('filters by short_id, search, favorited, saved and creator', async () => {
    const a = (await create({ name: 'Weekly 100% growth_rate', query: trends, favorited: true })).json();
    await create({ name: 'Other', description: 'about growth', query: trends, saved: true });
    const list = async (qs: string) => (await h.request('GET', `${base}?${qs}`)).json();
    expect((await list(`short_id=${a.short_id}`)).results.map((r: { id: number }) => r.id)).toEqual([a.id]);
    expect((await list('search=100%25 growth_')).results.map((r: { id: number }) => r.id)).toEqual([a.id]);
    expect((await list('search=GROWTH')).count).toBe(2);
    expect((await list('favorited=true')).results.map((r: { id: number }) => r.id)).toEqual([a.id]);
    expect((await list('saved=true')).results.map((r: { name: string }) => r.name)).toEqual(['Other']);
    const me = a.created_by.id;
    expect((await list(`created_by=${me}&limit=2`)).results).toHaveLength(2);
    const page = await list('limit=1&offset=1');
    expect(page.results).toHaveLength(1);
    expect(page.next).toContain('offset=2');
  });

  it('patches fields, deletes softly and restores', async () => {
    const a = (await create({ name: 'Before', query: trends })).json();
    const patched = await h.request('PATCH', `${base}${a.id}/`, {
      body: { name: 'After', description: 'd', tags: ['x'], favorited: true, query: hogql('SELECT 3') },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ name: 'After', description: 'd', tags: ['x'], favorited: true });
    expect(patched.json().query.kind).toBe('DataVisualizationNode');
    expect((await h.request('PATCH', `${base}${a.id}/`, { body: { deleted: true } })).json().deleted).toBe(
      true,
    );
    expect((await h.request('GET', `${base}?short_id=${a.short_id}`)).json().count).toBe(0);
    expect((await h.request('GET', `${base}${a.id}/`)).json().deleted).toBe(true);
    await h.request('PATCH', `${base}${a.id}/`, { body: { deleted: false } });
    expect((await h.request('GET', `${base}?short_id=${a.short_id}`)).json().count).toBe(1);
    expect((await h.request('DELETE', `${base}${a.id}/`)).statusCode).toBe(204);
    expect((await h.request('GET', `${base}?short_id=${a.short_id}`)).json().count).toBe(0);
  });

  it("never shows another project's insight, and asks for the insight scopes", async () => {
    const mine = (await create({ query: trends })).json();
    const other = await otherProject(h);
    const theirs = `/api/projects/${other.projectId}/insights/`;
    expect((await h.request('GET', `${theirs}${mine.id}/`, { key: other.key })).statusCode).toBe(404);
    expect(
      (await h.request('PATCH', `${theirs}${mine.id}/`, { key: other.key, body: { name: 'x' } })).statusCode,
    ).toBe(404);
    expect(
      (await h.request('GET', `${theirs}?short_id=${mine.short_id}`, { key: other.key })).json().count,
    ).toBe(0);
    expect((await h.request('GET', `${base}abc/`)).statusCode).toBe(404);
    expect((await h.request('GET', `${base}99999999999/`)).statusCode).toBe(404);

    const reader = await h.user({
      organizationId: h.boot.organization_id,
      key: { scopes: ['insight:read'] },
    });
    expect((await h.request('GET', base, { key: reader.key })).statusCode).toBe(200);
    expect((await create({ query: trends }, reader.key)).statusCode).toBe(403);
    const none = await h.user({ organizationId: h.boot.organization_id, key: { scopes: ['query:read'] } });
    expect((await h.request('GET', base, { key: none.key })).statusCode).toBe(403);
  });
});
