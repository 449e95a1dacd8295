import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, otherProject, type RawEvent, uuid } from '../helpers/query-lists.js';

/** Group types, groups (from $groupidentify) and groups/find on real stores. */
let h: Harness;
let project: number;
let other: Awaited<ReturnType<typeof otherProject>>;

const ev = (event: string, properties: Record<string, unknown>): RawEvent => ({
  event,
  distinct_id: 'u1',
  timestamp: new Date().toISOString(),
  uuid: uuid(),
  properties,
});

beforeAll(async () => {
  h = await startHarness();
  project = h.boot.project_id;
  other = await otherProject(h);
  await capture(h, h.boot.project_api_key, project, [
    ev('$groupidentify', {
      $group_type: 'company',
      $group_key: 'acme',
      $group_set: { name: 'Acme Inc', seats: 40 },
    }),
    ev('$groupidentify', { $group_type: 'company', $group_key: 'globex', $group_set: { name: 'Globex' } }),
    ev('$groupidentify', { $group_type: 'team', $group_key: 't1', $group_set: {} }),
  ]);
  await capture(
    h,
    other.token,
    other.projectId,
    [ev('$groupidentify', { $group_type: 'company', $group_key: 'secret', $group_set: { name: 'Secret' } })],
    other.key,
  );
});
afterAll(async () => h?.close());

const get = (path: string) => h.request('GET', `/api/projects/${project}/${path}`);

describe('groups', () => {
  it('lists group types and sets their display names', async () => {
    expect((await get('groups_types/')).json()).toEqual([
      { group_type: 'company', group_type_index: 0, name_singular: null, name_plural: null },
      { group_type: 'team', group_type_index: 1, name_singular: null, name_plural: null },
    ]);
    const res = await h.request('PATCH', `/api/projects/${project}/groups_types/update_metadata/`, {
      body: [{ group_type_index: 0, name_singular: 'Company', name_plural: 'Companies' }],
    });
    expect(res.json()[0]).toMatchObject({ name_singular: 'Company', name_plural: 'Companies' });
    const bad = await h.request('PATCH', `/api/projects/${project}/groups_types/update_metadata/`, {
      body: [{ group_type_index: 3, name_singular: 'X' }],
    });
    expect(bad.statusCode).toBe(400);
  });

  it('lists groups of a type with search, and finds one', async () => {
    const all = (await get('groups/?group_type_index=0')).json() as { results: Array<{ group_key: string }> };
    expect(all.results.map((g) => g.group_key).sort()).toEqual(['acme', 'globex']);
    const found = (await get('groups/?group_type_index=0&search=ACME')).json() as { results: unknown[] };
    expect(found.results).toEqual([
      expect.objectContaining({ group_key: 'acme', group_properties: { name: 'Acme Inc', seats: 40 } }),
    ]);
    const one = await get('groups/find/?group_type_index=0&group_key=globex');
    expect(one.json()).toMatchObject({ group_key: 'globex', group_type_index: 0 });
    expect((await get('groups/find/?group_type_index=0&group_key=secret')).statusCode).toBe(404);
    expect((await get('groups/')).statusCode).toBe(400);
    expect((await get('groups/?group_type_index=9')).statusCode).toBe(400);
  });
});
