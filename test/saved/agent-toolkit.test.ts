import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolkitAgent, type ToolkitAgent } from '../helpers/agent-toolkit.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, uuid } from '../helpers/query-lists.js';

/**
 * PostHog's agent toolkit (the classic MCP server's tools), unchanged, against Burrow on loopback:
 * run a query, save it as an insight, find it, put it on a dashboard, read its results.
 */
let h: Harness;
let project: number;
let agent: ToolkitAgent;

const NOW = new Date();
const trends = {
  kind: 'InsightVizNode',
  source: {
    kind: 'TrendsQuery',
    dateRange: { date_from: '-7d' },
    series: [{ kind: 'EventsNode', event: 'toolkit_event', custom_name: 'Toolkit', math: 'total' }],
    interval: 'day',
  },
};

beforeAll(async () => {
  h = await startHarness();
  project = h.boot.project_id;
  const at = new Date(NOW.getTime() - 3600_000).toISOString();
  await capture(h, h.boot.project_api_key, project, [
    { event: 'toolkit_event', distinct_id: 'a', timestamp: at, uuid: uuid() },
    { event: 'toolkit_event', distinct_id: 'b', timestamp: at, uuid: uuid() },
  ]);
  const url = await h.app.listen({ host: '127.0.0.1', port: 0 });
  agent = await startToolkitAgent(h, url, ['insight:write', 'dashboard:write']);
}, 60_000);
afterAll(async () => h?.close());

const call = (name: string, params: unknown) => agent.call(name, params);

describe('@posthog/agent-toolkit against Burrow', () => {
  it('starts and offers its insight, dashboard and query tools', () => {
    const names = agent.tools.map((t) => t.name);
    for (const n of [
      'query-run',
      'insight-create-from-query',
      'insights-get-all',
      'insight-get',
      'insight-query',
      'insight-update',
      'insight-delete',
      'dashboard-create',
      'dashboards-get-all',
      'dashboard-get',
      'dashboard-update',
      'dashboard-delete',
      'add-insight-to-dashboard',
    ])
      expect(names).toContain(n);
  });

  it('runs a query, saves it, lists it, puts it on a dashboard and reads its results', async () => {
    const ran = await call('query-run', { query: trends });
    expect(ran[0].count).toBe(2);

    const created = await call('insight-create-from-query', {
      data: {
        name: 'Toolkit trend',
        description: 'from the toolkit',
        query: trends,
        favorited: true,
        tags: ['mcp'],
      },
    });
    expect(created.short_id).toMatch(/^[A-Za-z0-9]{8}$/);
    expect(created.url).toContain(`/project/${project}/insights/${created.short_id}`);

    const listed = await call('insights-get-all', { data: { search: 'toolkit' } });
    expect(listed.map((i: { id: number }) => i.id)).toContain(created.id);
    expect((await call('insight-get', { insightId: created.short_id })).id).toBe(created.id);
    expect((await call('insight-get', { insightId: String(created.id) })).name).toBe('Toolkit trend');

    const dashboard = await call('dashboard-create', { data: { name: 'Toolkit board', description: 'd' } });
    expect(dashboard.id).toBeGreaterThan(0);
    await call('add-insight-to-dashboard', {
      data: { insightId: created.short_id, dashboardId: dashboard.id },
    });
    const board = await call('dashboard-get', { dashboardId: dashboard.id });
    expect(board.tiles.map((t: { insight: { short_id: string } }) => t.insight.short_id)).toEqual([
      created.short_id,
    ]);
    const all = await call('dashboards-get-all', { data: { search: 'toolkit' } });
    expect(all.map((d: { id: number }) => d.id)).toContain(dashboard.id);

    const queried = await call('insight-query', { insightId: created.short_id });
    expect(queried.insight.id).toBe(created.id);
    expect(queried.results[0].count).toBe(2);

    const updated = await call('insight-update', {
      insightId: created.short_id,
      data: { name: 'Renamed', query: trends },
    });
    expect(updated.name).toBe('Renamed');
    const renamed = await call('dashboard-update', {
      dashboardId: dashboard.id,
      data: { name: 'Renamed board' },
    });
    expect(renamed.name).toBe('Renamed board');

    await call('insight-delete', { insightId: created.short_id });
    expect((await h.request('GET', `/api/projects/${project}/insights/${created.id}/`)).json().deleted).toBe(
      true,
    );
    await call('dashboard-delete', { dashboardId: dashboard.id });
    expect(
      (await h.request('GET', `/api/projects/${project}/dashboards/${dashboard.id}/`)).json().deleted,
    ).toBe(true);
  });
});
