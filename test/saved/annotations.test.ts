import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { otherProject } from '../helpers/query-lists.js';

/** Annotations: CRUD, scopes (project, organization, insight, dashboard), filters, bad input. */
let h: Harness;
let api: string;

beforeAll(async () => {
  h = await startHarness();
  api = `/api/projects/${h.boot.project_id}/`;
}, 60_000);
afterAll(async () => h?.close());

const post = (body: unknown, key = h.key, base = api) =>
  h.request('POST', `${base}annotations/`, { key, body });

describe('annotations', () => {
  it('creates, reads, changes and deletes, with insight details', async () => {
    const insight = (
      await h.request('POST', `${api}insights/`, {
        body: { name: 'Chart', query: { kind: 'HogQLQuery', query: 'SELECT 1' } },
      })
    ).json();
    const res = await post({
      content: 'Launch',
      date_marker: '2024-03-05T10:00:00Z',
      dashboard_item: insight.id,
    });
    expect(res.statusCode).toBe(201);
    const a = res.json();
    expect(a).toMatchObject({
      content: 'Launch',
      date_marker: '2024-03-05T10:00:00.000Z',
      scope: 'dashboard_item',
      creation_type: 'USR',
      dashboard_item: insight.id,
      insight_short_id: insight.short_id,
      insight_name: 'Chart',
      deleted: false,
    });
    expect(a.created_by.email).toBeTruthy();
    const changed = await h.request('PATCH', `${api}annotations/${a.id}/`, {
      body: { content: 'Launched', scope: 'project' },
    });
    expect(changed.json()).toMatchObject({ content: 'Launched', scope: 'project' });
    expect((await h.request('GET', `${api}annotations/${a.id}/`)).json().content).toBe('Launched');
    expect((await h.request('DELETE', `${api}annotations/${a.id}/`)).statusCode).toBe(204);
    expect((await h.request('GET', `${api}annotations/${a.id}/`)).statusCode).toBe(404);
  });

  it('filters by search, scope and date, newest first', async () => {
    await post({ content: 'alpha release', date_marker: '2024-01-10T00:00:00Z' });
    await post({ content: 'beta 50% rollout', date_marker: '2024-02-10T00:00:00Z', scope: 'organization' });
    await post({ content: 'gamma', date_marker: '2024-03-10T00:00:00Z' });
    const list = async (qs: string) => (await h.request('GET', `${api}annotations/?${qs}`)).json();
    const all = await list('limit=50');
    const markers = all.results.map((r: { date_marker: string }) => r.date_marker);
    expect(markers).toEqual([...markers].sort().reverse());
    expect((await list('search=50%25')).results.map((r: { content: string }) => r.content)).toEqual([
      'beta 50% rollout',
    ]);
    expect((await list('scope=organization')).count).toBe(1);
    expect(
      (await list('after=2024-02-01&before=2024-03-01')).results.map((r: { content: string }) => r.content),
    ).toEqual(['beta 50% rollout']);
    expect((await list('date_from=2024-03-01')).count).toBeGreaterThanOrEqual(1);
  });

  it("shares organization-wide annotations with the organization's projects only", async () => {
    const orgWide = (
      await post({ content: 'org wide', scope: 'organization', date_marker: '2024-04-01T00:00:00Z' })
    ).json();
    const local = (await post({ content: 'project only', date_marker: '2024-04-01T00:00:00Z' })).json();
    const second = await h.request('POST', `/api/organizations/${h.boot.organization_id}/projects/`, {
      body: { name: 'Second' },
    });
    expect(second.statusCode).toBe(201);
    const sibling = `/api/projects/${second.json().id}/annotations/`;
    const seen = (await h.request('GET', sibling)).json().results.map((r: { id: number }) => r.id);
    expect(seen).toContain(orgWide.id);
    expect(seen).not.toContain(local.id);

    const other = await otherProject(h);
    const theirs = `/api/projects/${other.projectId}/annotations/`;
    expect((await h.request('GET', theirs, { key: other.key })).json().count).toBe(0);
    expect((await h.request('GET', `${theirs}${orgWide.id}/`, { key: other.key })).statusCode).toBe(404);
    expect(
      (await h.request('PATCH', `${theirs}${local.id}/`, { key: other.key, body: { content: 'x' } }))
        .statusCode,
    ).toBe(404);
  });

  it('refuses bad input with DRF-shaped 400s', async () => {
    const cases: [unknown, string][] = [
      [{ content: 'x', date_marker: 'yesterday-ish' }, 'date_marker'],
      [{ content: 'x', scope: 'galaxy' }, 'scope'],
      [{ content: 'x', scope: 'dashboard_item' }, 'dashboard_item'],
      [{ content: 'x', scope: 'dashboard' }, 'dashboard_id'],
      [{ content: 'x', dashboard_item: 987654 }, 'dashboard_item'],
      [{ content: 'x', creation_type: 'BOT' }, 'creation_type'],
      [{ content: 'x'.repeat(8193) }, 'content'],
    ];
    for (const [body, attr] of cases) {
      const res = await post(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({ type: 'validation_error', attr });
    }
    expect((await h.request('GET', `${api}annotations/?scope=galaxy`)).statusCode).toBe(400);
    expect((await h.request('GET', `${api}annotations/?after=never`)).statusCode).toBe(400);
    expect((await h.request('GET', `${api}annotations/abc/`)).statusCode).toBe(404);
    const reader = await h.user({
      organizationId: h.boot.organization_id,
      key: { scopes: ['annotation:read'] },
    });
    expect((await h.request('GET', `${api}annotations/`, { key: reader.key })).statusCode).toBe(200);
    expect((await post({ content: 'x' }, reader.key)).statusCode).toBe(403);
  });
});
