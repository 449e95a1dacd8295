import type { AddressInfo } from 'node:net';
import { PostHogAgentToolkit } from '@posthog/agent-toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * ErrorTrackingQuery on /query/ (what PostHog's frontend and MCP tools read), and the agent
 * toolkit's `list-errors` and `error-details` tools, unchanged, against Burrow on loopback.
 */
describe(`ErrorTrackingQuery (${backend})`, () => {
  let h: Harness;
  let base: string;
  const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

  const exception = (
    type: string,
    fn: string,
    user: string,
    session: string,
    ago: number,
    value = 'boom',
  ) => ({
    event: '$exception',
    distinct_id: user,
    timestamp: minutesAgo(ago),
    properties: {
      $session_id: session,
      $lib: 'web',
      $exception_list: [
        {
          type,
          value,
          mechanism: { handled: false },
          stacktrace: {
            type: 'raw',
            frames: [{ platform: 'node:javascript', function: fn, filename: '/srv/app.js', in_app: true }],
          },
        },
      ],
    },
  });

  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const res = await fetch(`${base}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: h.boot.project_api_key,
        batch: [
          exception('TypeError', 'often', 'u1', 's1', 50, 'cannot read x'),
          exception('TypeError', 'often', 'u1', 's1', 40, 'cannot read y'),
          exception('TypeError', 'often', 'u2', 's2', 30),
          exception('RangeError', 'rare', 'u3', 's3', 5, 'index out of range'),
          { event: '$pageview', distinct_id: 'u1', properties: {} },
        ],
      }),
    });
    expect(res.status).toBe(200);
  });
  afterAll(async () => h?.close());

  async function query(q: Record<string, unknown>) {
    const res = await h.request('POST', `/api/environments/${h.boot.project_id}/query/`, {
      body: { query: { kind: 'ErrorTrackingQuery', dateRange: { date_from: '-1h' }, ...q } },
    });
    return res;
  }

  it('answers issues with aggregations, volume buckets, first and last seen, ordered', async () => {
    const res = await query({ orderBy: 'occurrences', volumeResolution: 6, withAggregations: true });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.hasMore).toBe(false);
    const [often, rare] = body.results;
    expect(often).toMatchObject({ name: 'TypeError', status: 'active', library: 'web' });
    expect(often.aggregations).toMatchObject({ occurrences: 3, users: 2, sessions: 2 });
    expect(often.aggregations.volumeRange).toHaveLength(6);
    expect(often.aggregations.volumeRange.reduce((a: number, b: number) => a + b, 0)).toBe(3);
    expect(often.aggregations.volume_buckets[0]).toHaveProperty('label');
    expect(rare.aggregations.occurrences).toBe(1);
    expect(Date.parse(often.first_seen)).toBeLessThan(Date.parse(often.last_seen));
    const byLast = (
      await query({ orderBy: 'last_seen', orderDirection: 'DESC', volumeResolution: 0 })
    ).json();
    expect(byLast.results[0].name).toBe('RangeError');
    const asc = (await query({ orderBy: 'occurrences', orderDirection: 'ASC', volumeResolution: 0 })).json();
    expect(asc.results[0].name).toBe('RangeError');
  });

  it('filters by search, status, assignee and date range; pages with hasMore', async () => {
    const search = (await query({ searchQuery: 'index range', volumeResolution: 0 })).json();
    expect(search.results.map((r: { name: string }) => r.name)).toEqual(['RangeError']);
    const recent = (await query({ dateRange: { date_from: '-10M' }, volumeResolution: 0 })).json();
    expect(recent.results.map((r: { name: string }) => r.name)).toEqual(['RangeError']);
    const page = (await query({ limit: 1, volumeResolution: 0 })).json();
    expect(page.results).toHaveLength(1);
    expect(page.hasMore).toBe(true);
    const id = page.results[0].id;
    const issues = `/api/environments/${h.boot.project_id}/error_tracking/issues/`;
    await h.request('PATCH', `${issues}${id}/`, {
      body: { status: 'resolved', assignee: { type: 'user', id: 5 } },
    });
    const active = (await query({ status: 'active', volumeResolution: 0 })).json();
    expect(active.results.map((r: { id: string }) => r.id)).not.toContain(id);
    const resolved = (await query({ status: 'resolved', volumeResolution: 0 })).json();
    expect(resolved.results.map((r: { id: string }) => r.id)).toEqual([id]);
    const mine = (
      await query({ status: 'all', assignee: { type: 'user', id: 5 }, volumeResolution: 0 })
    ).json();
    expect(mine.results.map((r: { id: string }) => r.id)).toEqual([id]);
    await h.request('PATCH', `${issues}${id}/`, { body: { status: 'active', assignee: null } });
  });

  it('refuses bad nodes with a 400', async () => {
    for (const bad of [
      { orderBy: 'nonsense' },
      { status: 'gone' },
      { volumeResolution: 100_000 },
      { searchQuery: 'x'.repeat(5000) },
      { dateRange: { date_from: 'not a date' } },
    ]) {
      const res = await query(bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json().type).toBe('validation_error');
    }
  });

  it("serves the agent toolkit's list-errors and error-details tools", async () => {
    const created = await h.request('POST', '/api/personal_api_keys/', {
      body: {
        label: 'agent',
        scopes: ['*'],
        scoped_teams: [h.boot.project_id],
        scoped_organizations: [h.boot.organization_id],
      },
    });
    const { port } = h.app.server.address() as AddressInfo;
    const kit = new PostHogAgentToolkit({
      posthogApiToken: (created.json() as { value: string }).value,
      posthogApiBaseUrl: `http://127.0.0.1:${port}`,
    });
    const context = kit.getContext();
    const tools = await kit.getTools();
    const run = async (name: string, params: Record<string, unknown>) => {
      const tool = tools.find((t) => t.name === name);
      if (!tool) throw new Error(`tool ${name} not offered`);
      const out = (await tool.handler(context, tool.schema.parse(params) as never)) as {
        content: Array<{ text: string }>;
      };
      return JSON.parse(out.content[0]?.text ?? 'null');
    };
    const list = await run('list-errors', { filterTestAccounts: false });
    expect(list.map((r: { name: string }) => r.name).sort()).toEqual(['RangeError', 'TypeError']);
    const one = list.find((r: { name: string }) => r.name === 'RangeError');
    const details = await run('error-details', { issueId: one.id });
    expect(details).toHaveLength(1);
    expect(details[0].aggregations.occurrences).toBe(1);
    const sample = JSON.parse(details[0].first_event.properties);
    expect(sample.$exception_list[0].value).toBe('index out of range');
  });
});
