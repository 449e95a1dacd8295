import { PostHogAgentToolkit } from '@posthog/agent-toolkit/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';

// PostHog's own agent toolkit (the classic MCP server's tools) against Burrow on loopback: its
// session setup reads /api/users/@me/ and /api/personal_api_keys/@current/ and validates them with
// zod (scoped_teams/scoped_organizations must be arrays); on any failure it offers no tools at all.
let h: Harness;
let baseUrl: string;

beforeAll(async () => {
  h = await startHarness();
  baseUrl = await h.app.listen({ host: '127.0.0.1', port: 0 });
  const res = await h.request('POST', '/batch/', {
    key: null,
    body: {
      api_key: h.boot.project_api_key,
      batch: [
        { event: 'toolkit-event', distinct_id: 'a' },
        { event: 'toolkit-event', distinct_id: 'b' },
      ],
    },
  });
  expect(res.statusCode).toBe(200);
}, 60_000);
afterAll(() => h?.close());

describe('@posthog/agent-toolkit against Burrow', () => {
  it('every key response lists scoped_teams and scoped_organizations ([] when unrestricted)', async () => {
    const current = (await h.request('GET', '/api/personal_api_keys/@current/')).json();
    expect(current).toMatchObject({ scoped_teams: [], scoped_organizations: [] });
    const list = (await h.request('GET', '/api/personal_api_keys/')).json();
    for (const key of list.results ?? list) {
      expect(key).toMatchObject({ scoped_teams: [], scoped_organizations: [] });
    }
    const created = await h.request('POST', '/api/personal_api_keys/', {
      body: { label: 'unrestricted', scopes: ['query:read'], scoped_teams: null },
    });
    expect(created.json()).toMatchObject({ scoped_teams: [], scoped_organizations: [] });
  });

  it('offers its tools, and query-run answers a HogQL query', async () => {
    const toolkit = new PostHogAgentToolkit({ posthogApiToken: h.key, posthogApiBaseUrl: baseUrl });
    const context = toolkit.getContext();
    const tools = await toolkit.getTools();
    const names = tools.map((t) => t.name);
    expect(names.length).toBeGreaterThan(10);
    expect(names).toContain('query-run');
    // The session resolved the key's project the way the toolkit does it (user + key).
    expect(await context.stateManager.getProjectId()).toBe(String(h.boot.project_id));
    const run = tools.find((t) => t.name === 'query-run')!;
    const answer = await run.handler(context, {
      query: {
        kind: 'DataVisualizationNode',
        source: { kind: 'HogQLQuery', query: "SELECT count() FROM events WHERE event = 'toolkit-event'" },
      },
    });
    expect(answer.content[0]).toEqual({ type: 'text', text: '[[2]]' });
  });
});
