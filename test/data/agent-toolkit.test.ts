import type { AddressInfo } from 'node:net';
import { PostHogAgentToolkit } from '@posthog/agent-toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, type RawEvent, uuid } from '../helpers/query-lists.js';

/**
 * PostHog's agent toolkit (the MCP server's tools), unchanged, against Burrow on loopback: the
 * event-definition, property-definition and query tools an agent uses to explore a project.
 */
let h: Harness;
let tools: Awaited<ReturnType<PostHogAgentToolkit['getTools']>>;
let context: ReturnType<PostHogAgentToolkit['getContext']>;

const ev = (event: string, properties: Record<string, unknown>): RawEvent => ({
  event,
  distinct_id: 'agent-user',
  timestamp: new Date().toISOString(),
  uuid: uuid(),
  properties,
});

beforeAll(async () => {
  h = await startHarness();
  await capture(h, h.boot.project_api_key, h.boot.project_id, [
    ev('checkout', { amount: 20, coupon: 'SPRING', $set: { plan: 'pro' } }),
    ev('checkout', { amount: 15, coupon: 'NONE' }),
    ev('$pageview', { $current_url: 'https://shop.test/' }),
  ]);
  await h.app.definitions.flush();
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = h.app.server.address() as AddressInfo;
  // Scoped to the project and its organization: the toolkit requires both lists to be arrays (an
  // unscoped key's null lists become [] on the branch fixing key serialisation).
  const created = await h.request('POST', '/api/personal_api_keys/', {
    body: {
      label: 'agent',
      scopes: ['*'],
      scoped_teams: [h.boot.project_id],
      scoped_organizations: [h.boot.organization_id],
    },
  });
  const kit = new PostHogAgentToolkit({
    posthogApiToken: (created.json() as { value: string }).value,
    posthogApiBaseUrl: `http://127.0.0.1:${port}`,
  });
  context = kit.getContext();
  tools = await kit.getTools();
});
afterAll(async () => h?.close());

const run = async (name: string, params: Record<string, unknown>) => {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`tool ${name} not offered (got ${tools.map((t) => t.name).join(', ')})`);
  const out = (await tool.handler(context, tool.schema.parse(params) as never)) as {
    content: Array<{ text: string }>;
  };
  return JSON.parse(out.content[0]?.text ?? 'null') as unknown;
};

describe('@posthog/agent-toolkit against Burrow', () => {
  it('event-definitions-list lists the captured events', async () => {
    const events = (await run('event-definitions-list', {})) as Array<{ name: string; last_seen_at: string }>;
    expect(events.map((e) => e.name).sort()).toEqual(['$pageview', 'checkout']);
    expect(events[0]?.last_seen_at).toEqual(expect.any(String));
  });

  it('properties-list gives an event’s properties with their types, and person properties', async () => {
    const props = (await run('properties-list', { type: 'event', eventName: 'checkout' })) as Array<{
      name: string;
      property_type: string;
    }>;
    expect(props).toEqual(
      expect.arrayContaining([
        { name: 'amount', property_type: 'Numeric' },
        { name: 'coupon', property_type: 'String' },
      ]),
    );
    expect(props.map((p) => p.name)).not.toContain('$current_url');
    const person = (await run('properties-list', { type: 'person' })) as Array<{ name: string }>;
    expect(person.map((p) => p.name)).toEqual(['plan']);
  });

  it('query-run runs HogQL that sums a typed property', async () => {
    const rows = await run('query-run', {
      query: {
        kind: 'DataVisualizationNode',
        source: {
          kind: 'HogQLQuery',
          query: "SELECT sum(properties.amount) FROM events WHERE event = 'checkout'",
        },
      },
    });
    expect(rows).toEqual([[35]]);
  });
});
