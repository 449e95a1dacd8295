import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, otherProject, query, uuid } from '../helpers/query-lists.js';

/** Dashboards: tiles, text tiles, filters applied to every tile, refresh modes, bad input. */
let h: Harness;
let project: number;
let api: string;

const NOW = new Date('2024-03-10T12:00:00Z');
const trends = {
  kind: 'TrendsQuery',
  dateRange: { date_from: '2024-03-01', date_to: '2024-03-10' },
  series: [{ kind: 'EventsNode', event: 'signup', math: 'total' }],
};
const sql = { kind: 'HogQLQuery', query: "SELECT count() FROM events WHERE event = 'signup' AND {filters}" };

beforeAll(async () => {
  h = await startHarness({}, { now: () => NOW });
  project = h.boot.project_id;
  api = `/api/projects/${project}/`;
  const at = (d: number) => `2024-03-0${d}T10:00:00Z`;
  await capture(h, h.boot.project_api_key, project, [
    { event: 'signup', distinct_id: 'a', timestamp: at(2), uuid: uuid(), properties: { plan: 'free' } },
    { event: 'signup', distinct_id: 'b', timestamp: at(5), uuid: uuid(), properties: { plan: 'pro' } },
    { event: 'signup', distinct_id: 'c', timestamp: at(6), uuid: uuid(), properties: { plan: 'pro' } },
  ]);
}, 60_000);
afterAll(async () => h?.close());

const post = (path: string, body: unknown, key = h.key) => h.request('POST', `${api}${path}`, { key, body });
const patch = (path: string, body: unknown, key = h.key) =>
  h.request('PATCH', `${api}${path}`, { key, body });
const get = (path: string, key = h.key) => h.request('GET', `${api}${path}`, { key });

async function dashboardWith(filters: Record<string, unknown> = {}) {
  const d = (await post('dashboards/', { name: 'Growth', filters })).json();
  const a = (await post('insights/', { name: 'Trend', query: trends, dashboards: [d.id] })).json();
  const b = (await post('insights/', { name: 'SQL', query: sql })).json();
  expect((await patch(`insights/${b.id}/`, { dashboards: [d.id] })).json().dashboards).toEqual([d.id]);
  return { d, a, b };
}

type TileBody = { insight: { id: number; result: unknown; query_status: unknown } | null; text: unknown };
const tileResult = (tiles: TileBody[], id: number) =>
  tiles.find((t) => t.insight?.id === id)?.insight?.result;

describe('dashboard tiles', () => {
  it('shows its insights as tiles, cached only until refreshed', async () => {
    const { d, a, b } = await dashboardWith();
    const cold = (await get(`dashboards/${d.id}/`)).json();
    expect(cold.tiles.map((t: TileBody) => t.insight?.id)).toEqual([a.id, b.id]);
    expect(cold.tiles.every((t: TileBody) => t.insight?.result === null)).toBe(true);

    const fresh = (await get(`dashboards/${d.id}/?refresh=blocking`)).json();
    expect((tileResult(fresh.tiles, a.id) as { count: number }[])[0]?.count).toBe(3);
    expect(tileResult(fresh.tiles, b.id)).toEqual([[3]]);
    expect(fresh.last_refresh).toBeTruthy();
    const again = (await get(`dashboards/${d.id}/`)).json();
    expect(again.tiles.every((t: { is_cached: boolean }) => t.is_cached)).toBe(true);

    // The insight knows its dashboard.
    expect((await get(`insights/${a.id}/`)).json().dashboards).toEqual([d.id]);
    expect((await get(`insights/?dashboards=${d.id}`)).json().count).toBe(2);
  });

  it("applies the dashboard's filters to every tile, as /query's filters_override does", async () => {
    const filters = { properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }] };
    const { d, a, b } = await dashboardWith(filters);
    const body = (await get(`dashboards/${d.id}/?refresh=blocking`)).json();
    expect((tileResult(body.tiles, a.id) as { count: number }[])[0]?.count).toBe(2);
    expect(tileResult(body.tiles, b.id)).toEqual([[2]]);
    const viaQuery = await query(h, project, sql, h.key, { filters_override: filters });
    expect(viaQuery.json().results).toEqual([[2]]);

    // A date filter replaces each insight's range; filters_override in the URL replaces the dashboard's.
    await patch(`dashboards/${d.id}/`, { filters: { date_from: '2024-03-06', date_to: '2024-03-10' } });
    const dated = (await get(`dashboards/${d.id}/?refresh=blocking`)).json();
    expect((tileResult(dated.tiles, a.id) as { count: number }[])[0]?.count).toBe(1);
    expect(tileResult(dated.tiles, b.id)).toEqual([[1]]);
    const override = encodeURIComponent(JSON.stringify({ date_from: '2024-03-01' }));
    const over = (await get(`dashboards/${d.id}/?refresh=blocking&filters_override=${override}`)).json();
    expect(tileResult(over.tiles, b.id)).toEqual([[3]]);
    // The insight alone is unfiltered; from_dashboard applies the dashboard's filters.
    expect((await get(`insights/${b.id}/?refresh=blocking`)).json().result).toEqual([[3]]);
    expect((await get(`insights/${b.id}/?refresh=blocking&from_dashboard=${d.id}`)).json().result).toEqual([
      [1],
    ]);
  });

  it('refreshes tiles in the background on async modes', async () => {
    const { d, b } = await dashboardWith({ date_from: '-30d' });
    const started = (await get(`dashboards/${d.id}/?refresh=force_async`)).json();
    const tile = started.tiles.find((t: TileBody) => t.insight?.id === b.id);
    expect(tile.insight.query_status).toMatchObject({ dashboard_id: d.id, insight_id: b.id });
    let result: unknown = null;
    for (let i = 0; i < 100 && !result; i++) {
      await new Promise((r) => setTimeout(r, 50));
      result = tileResult((await get(`dashboards/${d.id}/`)).json().tiles, b.id);
    }
    expect(result).toEqual([[3]]);
  });

  it('adds, changes and removes text tiles; removes insight tiles', async () => {
    const { d, a } = await dashboardWith();
    const added = (
      await patch(`dashboards/${d.id}/`, {
        tiles: [{ text: { body: 'Read me' }, layouts: { sm: { w: 6 } } }],
      })
    ).json();
    const text = added.tiles.find((t: TileBody) => t.text);
    expect(text.text.body).toBe('Read me');
    expect(text.layouts).toEqual({ sm: { w: 6 } });
    const changed = (
      await patch(`dashboards/${d.id}/`, {
        tiles: [{ id: text.id, text: { body: 'Changed' }, color: 'blue' }],
      })
    ).json();
    expect(changed.tiles.find((t: { id: number }) => t.id === text.id)).toMatchObject({
      color: 'blue',
      text: { body: 'Changed' },
    });
    const insightTile = changed.tiles.find((t: TileBody) => t.insight?.id === a.id);
    const removed = (
      await patch(`dashboards/${d.id}/`, {
        tiles: [
          { id: insightTile.id, deleted: true },
          { id: text.id, deleted: true },
        ],
      })
    ).json();
    expect(removed.tiles.map((t: TileBody) => t.insight?.id ?? 'text')).not.toContain(a.id);
    expect(removed.tiles.some((t: TileBody) => t.text)).toBe(false);
    expect((await get(`insights/${a.id}/`)).json().dashboards).toEqual([]);
    // A deleted insight's tile disappears too.
    const { d: d2, a: a2 } = await dashboardWith();
    await patch(`insights/${a2.id}/`, { deleted: true });
    expect(
      (await get(`dashboards/${d2.id}/`)).json().tiles.map((t: TileBody) => t.insight?.id),
    ).not.toContain(a2.id);
  });

  it('lists, pins, searches and deletes softly', async () => {
    const pinned = (await post('dashboards/', { name: 'Zeta pinned', pinned: true, tags: ['Ops'] })).json();
    expect(pinned).toMatchObject({ pinned: true, tags: ['ops'], deleted: false, filters: {} });
    const list = (await get('dashboards/')).json();
    expect(list.results[0].id).toBe(pinned.id);
    expect((await get('dashboards/?pinned=true')).json().results.map((r: { id: number }) => r.id)).toEqual([
      pinned.id,
    ]);
    expect((await get('dashboards/?search=zeta')).json().count).toBe(1);
    expect((await patch(`dashboards/${pinned.id}/`, { deleted: true })).json().deleted).toBe(true);
    expect((await get('dashboards/?search=zeta')).json().count).toBe(0);
    await patch(`dashboards/${pinned.id}/`, { deleted: false });
    expect((await h.request('DELETE', `${api}dashboards/${pinned.id}/`)).statusCode).toBe(204);
    expect((await get('dashboards/?search=zeta')).json().count).toBe(0);
  });
});

describe('bad input', () => {
  it('answers DRF-shaped 400s and never reaches another project', async () => {
    const { d } = await dashboardWith();
    const bad: [unknown, string][] = [
      [{ filters: 'x' }, 'filters'],
      [{ filters: { properties: 'plan' } }, 'filters__properties'],
      [{ filters: { date_from: 5 } }, 'filters__date_from'],
      [{ tiles: [{ id: 999999, deleted: true }] }, 'tiles__0__id'],
      [{ tiles: [{ layouts: {} }] }, 'tiles__0__id'],
      [{ tiles: [{ text: { body: 'x'.repeat(4001) } }] }, 'tiles__0__text__body'],
      [{ name: 5 }, 'name'],
    ];
    for (const [body, attr] of bad) {
      const res = await patch(`dashboards/${d.id}/`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({ type: 'validation_error', attr });
    }
    expect((await get(`dashboards/${d.id}/?refresh=never`)).statusCode).toBe(400);
    expect((await get(`dashboards/${d.id}/?filters_override=%7Bnot-json`)).statusCode).toBe(400);

    const other = await otherProject(h);
    const theirs = `/api/projects/${other.projectId}/`;
    expect((await h.request('GET', `${theirs}dashboards/${d.id}/`, { key: other.key })).statusCode).toBe(404);
    const theirInsight = (
      await h.request('POST', `${theirs}insights/`, { key: other.key, body: { query: trends } })
    ).json();
    // Their insight cannot be put on my dashboard, nor mine on theirs.
    expect((await patch(`insights/${theirInsight.id}/`, { dashboards: [d.id] })).statusCode).toBe(404);
    const res = await h.request('PATCH', `${theirs}insights/${theirInsight.id}/`, {
      key: other.key,
      body: { dashboards: [d.id] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().attr).toBe('dashboards');
    expect((await get(`insights/${theirInsight.id}/`)).statusCode).toBe(404);

    const reader = await h.user({
      organizationId: h.boot.organization_id,
      key: { scopes: ['dashboard:read'] },
    });
    expect((await get('dashboards/', reader.key)).statusCode).toBe(200);
    expect((await post('dashboards/', { name: 'x' }, reader.key)).statusCode).toBe(403);
  });
});
