import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, otherProject, uuid } from '../helpers/query-lists.js';

/** The endpoints PostHog's MCP server invokes: `{args}` in, `{success, content}` out. */
let h: Harness;
let project: number;
let base: string;

beforeAll(async () => {
  h = await startHarness();
  project = h.boot.project_id;
  base = `/api/environments/${project}/mcp_tools/`;
  const at = new Date(Date.now() - 3600_000).toISOString();
  await capture(h, h.boot.project_api_key, project, [
    {
      event: 'mcp_signup',
      distinct_id: 'a',
      timestamp: at,
      uuid: uuid(),
      properties: { plan: 'pro', seats: 3 },
    },
    { event: 'mcp_signup', distinct_id: 'b', timestamp: at, uuid: uuid(), properties: { plan: 'pro' } },
    { event: 'mcp_signup', distinct_id: 'c', timestamp: at, uuid: uuid(), properties: { plan: 'free' } },
    {
      event: 'mcp_view',
      distinct_id: 'a',
      timestamp: at,
      uuid: uuid(),
      properties: { blob: { x: 'y'.repeat(900) } },
    },
  ]);
}, 60_000);
afterAll(async () => h?.close());

const invoke = (tool: string, args: unknown, key = h.key, path = base) =>
  h.request('POST', `${path}${tool}/`, { key, body: { args } });

describe('execute_sql', () => {
  it('runs HogQL through the team guard and answers a pipe table', async () => {
    const res = await invoke('execute_sql', {
      query: "SELECT event, count() AS c FROM events WHERE event LIKE 'mcp_%' GROUP BY event ORDER BY event",
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, content: 'event|c\nmcp_signup|3\nmcp_view|1' });
  });

  it('truncates long JSON cells unless asked not to, and shows nulls', async () => {
    const q = "SELECT properties.blob AS blob, NULL AS n FROM events WHERE event = 'mcp_view'";
    const cut = (await invoke('execute_sql', { query: q })).json().content as string;
    expect(cut).toMatch(/\.\.\.truncated\|\(null\)$/);
    const full = (await invoke('execute_sql', { query: q, truncate: false })).json().content as string;
    expect(full.length).toBeGreaterThan(900);
  });

  it('reports query errors as tool failures a model can act on', async () => {
    const res = await invoke('execute_sql', { query: 'SELECT nope FROM nowhere' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(false);
    expect(body.content).toContain('Tool `execute_sql` failed (invalid_input)');
    expect(body.error).toMatchObject({ category: 'invalid_input', retry: 'adjusted', tool: 'execute_sql' });
    const conn = (await invoke('execute_sql', { query: 'SELECT 1', connectionId: 'pg' })).json();
    expect(conn.success).toBe(false);
  });

  it('never reads another project', async () => {
    const other = await otherProject(h);
    const res = await invoke(
      'execute_sql',
      { query: "SELECT count() FROM events WHERE event LIKE 'mcp_%'" },
      other.key,
      `/api/environments/${other.projectId}/mcp_tools/`,
    );
    expect(res.json()).toEqual({ success: true, content: 'count()\n0' });
    expect((await invoke('execute_sql', { query: 'SELECT 1' }, other.key)).statusCode).toBe(403);
  });
});

describe('read_taxonomy', () => {
  it('lists events, their properties and sample values', async () => {
    const events = (await invoke('read_taxonomy', { query: { kind: 'events' } })).json();
    expect(events.success).toBe(true);
    expect(events.content.indexOf('mcp_signup')).toBeLessThan(events.content.indexOf('mcp_view'));
    const props = (
      await invoke('read_taxonomy', { query: { kind: 'event_properties', event_name: 'mcp_signup' } })
    ).json();
    expect(props.content).toContain('"plan"');
    expect(props.content).toMatch(/Numeric:\n\s+- name: "seats"/);
    const values = (
      await invoke('read_taxonomy', {
        query: { kind: 'event_property_values', event_name: 'mcp_signup', property_name: 'plan' },
      })
    ).json();
    expect(values.content).toMatch(/- "pro"\n- "free"/);
    const sessions = (
      await invoke('read_taxonomy', { query: { kind: 'entity_properties', entity: 'sessions' } })
    ).json();
    expect(sessions.content).toContain('session_id');
    const action = await h.request('POST', `/api/projects/${project}/actions/`, {
      body: { name: 'Signed up', steps: [{ event: 'mcp_signup' }] },
    });
    const actionProps = (
      await invoke('read_taxonomy', { query: { kind: 'action_properties', action_id: action.json().id } })
    ).json();
    expect(actionProps.content).toContain('"plan"');
    expect(
      (await invoke('read_taxonomy', { query: { kind: 'action_properties', action_id: 999999 } })).json()
        .success,
    ).toBe(false);
    expect(
      (await invoke('read_taxonomy', { query: { kind: 'entity_properties', entity: 'planet' } })).json()
        .success,
    ).toBe(false);
  });

  it('asks for the scopes PostHog registers the tool with', async () => {
    const partial = await h.user({
      organizationId: h.boot.organization_id,
      key: { scopes: ['event_definition:read', 'query:read'] },
    });
    const res = await invoke('read_taxonomy', { query: { kind: 'events' } }, partial.key);
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toContain("'");
  });
});

describe('read_data_warehouse_schema', () => {
  it('describes the core tables, or the named ones', async () => {
    const all = (
      await invoke('read_data_warehouse_schema', { query: { kind: 'data_warehouse_schema' } })
    ).json();
    expect(all.content).toContain('## Table `events`');
    expect(all.content).toContain('- event (string)');
    expect(all.content).toContain('## Table `sessions`');
    const some = (
      await invoke('read_data_warehouse_schema', {
        query: { kind: 'data_warehouse_schema', table_names: ['persons', 'stripe'] },
      })
    ).json();
    expect(some.content).toContain('## Table `persons` (core)');
    expect(some.content).toContain('## Not found\n- `stripe`');
  });
});

describe('bad input', () => {
  it('answers 400 with both shapes for arguments that do not match, 404 for unknown tools', async () => {
    const cases: [string, unknown][] = [
      ['execute_sql', {}],
      ['execute_sql', { query: 5 }],
      ['execute_sql', { query: 'x'.repeat(100_001) }],
      ['execute_sql', 'SELECT 1'],
      ['read_taxonomy', { query: { kind: 'planets' } }],
      ['read_taxonomy', { query: { kind: 'events', limit: 501 } }],
      ['read_taxonomy', { query: { kind: 'event_properties' } }],
      ['read_data_warehouse_schema', { query: { kind: 'other' } }],
      ['read_data_warehouse_schema', { query: { table_names: 'events' } }],
    ];
    for (const [tool, args] of cases) {
      const res = await invoke(tool, args);
      expect(res.statusCode, `${tool} ${JSON.stringify(args).slice(0, 80)}`).toBe(400);
      expect(res.json()).toMatchObject({ success: false, type: 'validation_error', attr: 'args' });
    }
    const unknown = await invoke('read_minds', {});
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ success: false, error: { category: 'unknown_tool' } });
  });
});
