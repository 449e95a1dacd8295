import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * Who may do what on the error tracking routes: another project's ids are 404 from a project the
 * caller may use; another project's paths are 403; a key without `error_tracking:write` reads but
 * never writes; a key without either scope, or scoped to another project, does nothing.
 */
describe(`error tracking authorization (${backend})`, () => {
  let h: Harness;
  let ours: string;
  const ids: Record<string, string> = {};
  let other: { key: string; projectId: number; organizationId: string };

  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    ours = `/api/environments/${h.boot.project_id}/error_tracking/`;
    const captured = await h.request('POST', '/batch/', {
      key: null,
      body: {
        api_key: h.boot.project_api_key,
        batch: [
          {
            event: '$exception',
            distinct_id: 'u',
            properties: { $exception_list: [{ type: 'AuthzError', value: 'x' }] },
          },
        ],
      },
    });
    expect(captured.statusCode, captured.body).toBe(200);
    const issues = await h.request('GET', `${ours}issues/?search=AuthzError`);
    ids.issues = issues.json().results[0].id;
    const filters = { type: 'AND', values: [{ key: '$exception_types', value: 'Nope', operator: 'exact' }] };
    ids.grouping_rules = (await h.request('POST', `${ours}grouping_rules/`, { body: { filters } })).json().id;
    ids.suppression_rules = (
      await h.request('POST', `${ours}suppression_rules/`, { body: { filters } })
    ).json().id;
    const start = await h.request('POST', `${ours}symbol_sets/bulk_start_upload`, {
      body: { symbol_sets: [{ chunk_id: 'authz-chunk', release_id: null, content_hash: 'abc' }] },
    });
    expect(start.statusCode, start.body).toBe(200);
    ids.symbol_sets = start.json().id_map['authz-chunk'].symbol_set_id;
    for (const [k, v] of Object.entries(ids)) expect(v, k).toMatch(/^[0-9a-f-]{36}$/);
    other = await h.owner('Authz elsewhere');
  });
  afterAll(async () => {
    await h?.close();
  });

  const kinds = ['issues', 'grouping_rules', 'suppression_rules', 'symbol_sets'] as const;

  it("another project's ids are 404 from the caller's own project, for reads and writes", async () => {
    const theirs = `/api/projects/${other.projectId}/error_tracking/`;
    for (const kind of kinds) {
      const url = `${theirs}${kind}/${ids[kind]}/`;
      expect((await h.request('GET', url, { key: other.key })).statusCode, `GET ${kind}`).toBe(404);
      if (kind !== 'symbol_sets') {
        const patch = await h.request('PATCH', url, { key: other.key, body: { description: 'mine now' } });
        expect(patch.statusCode, `PATCH ${kind}`).toBe(404);
      }
      if (kind !== 'issues') {
        expect((await h.request('DELETE', url, { key: other.key })).statusCode, `DELETE ${kind}`).toBe(404);
      }
    }
    expect(
      (
        await h.request('POST', `${theirs}issues/${ids.issues}/merge/`, {
          key: other.key,
          body: { ids: [ids.issues] },
        })
      ).statusCode,
    ).toBe(404);
    // Still there, unchanged, for their owner.
    for (const kind of kinds) {
      expect((await h.request('GET', `${ours}${kind}/${ids[kind]}/`)).statusCode, kind).toBe(200);
    }
    expect(
      (await h.request('GET', `${ours}grouping_rules/${ids.grouping_rules}/`)).json().description,
    ).toBeNull();
  });

  it("another project's paths are 403, even with a full-access key", async () => {
    for (const kind of kinds) {
      expect((await h.request('GET', `${ours}${kind}/`, { key: other.key })).statusCode, kind).toBe(403);
      expect(
        (await h.request('GET', `${ours}${kind}/${ids[kind]}/`, { key: other.key })).statusCode,
        kind,
      ).toBe(403);
    }
    const post = await h.request('POST', `${ours}suppression_rules/`, {
      key: other.key,
      body: { filters: { type: 'AND', values: [] } },
    });
    expect(post.statusCode).toBe(403);
  });

  it('a read-only key reads everything and writes nothing', async () => {
    const { key } = await h.user({
      organizationId: h.boot.organization_id,
      key: { scopes: ['error_tracking:read'] },
    });
    for (const kind of kinds) {
      expect((await h.request('GET', `${ours}${kind}/`, { key })).statusCode, kind).toBe(200);
      expect((await h.request('GET', `${ours}${kind}/${ids[kind]}/`, { key })).statusCode, kind).toBe(200);
    }
    const filters = { type: 'AND', values: [] };
    const writes: [string, string, unknown][] = [
      ['PATCH', `${ours}issues/${ids.issues}/`, { status: 'resolved' }],
      ['PATCH', `${ours}issues/${ids.issues}/assign/`, { assignee: null }],
      ['POST', `${ours}issues/${ids.issues}/merge/`, { ids: [] }],
      ['POST', `${ours}issues/${ids.issues}/split/`, { fingerprints: [] }],
      ['POST', `${ours}grouping_rules/`, { filters }],
      ['PATCH', `${ours}grouping_rules/${ids.grouping_rules}/`, { description: 'x' }],
      ['PATCH', `${ours}grouping_rules/reorder/`, { orders: {} }],
      ['DELETE', `${ours}grouping_rules/${ids.grouping_rules}/`, undefined],
      ['POST', `${ours}suppression_rules/`, { filters }],
      ['PUT', `${ours}suppression_rules/${ids.suppression_rules}/`, { filters }],
      ['DELETE', `${ours}suppression_rules/${ids.suppression_rules}/`, undefined],
      ['POST', `${ours}symbol_sets/bulk_start_upload`, { symbol_sets: [] }],
      ['POST', `${ours}symbol_sets/bulk_finish_upload`, { content_hashes: {} }],
      ['DELETE', `${ours}symbol_sets/${ids.symbol_sets}/`, undefined],
      ['POST', `${ours}releases`, { hash_id: 'h', version: '1', project: 'p' }],
    ];
    for (const [method, url, body] of writes) {
      const res = await h.request(method, url, { key, body });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().type).toBe('authentication_error');
    }
    for (const kind of kinds) {
      expect((await h.request('GET', `${ours}${kind}/${ids[kind]}/`)).statusCode, kind).toBe(200);
    }
  });

  it('a key without error tracking scopes, or scoped to another project, is refused', async () => {
    const noScope = await h.user({ organizationId: h.boot.organization_id, key: { scopes: ['query:read'] } });
    const second = await h.request('POST', `/api/organizations/${h.boot.organization_id}/projects/`, {
      body: { name: 'Second project' },
    });
    expect(second.statusCode, second.body).toBe(201);
    const elsewhere = await h.user({
      organizationId: h.boot.organization_id,
      key: { scopes: ['*'], scoped_teams: [second.json().id] },
    });
    for (const key of [noScope.key, elsewhere.key]) {
      for (const kind of kinds) {
        expect((await h.request('GET', `${ours}${kind}/`, { key })).statusCode, kind).toBe(403);
      }
      const q = await h.request('POST', `/api/environments/${h.boot.project_id}/query/`, {
        key,
        body: { query: { kind: 'ErrorTrackingQuery', dateRange: { date_from: '-7d' } } },
      });
      if (key === elsewhere.key) expect(q.statusCode).toBe(403);
    }
    expect((await h.request('GET', `${ours}issues/`, { key: null })).statusCode).toBe(401);
  });
});
