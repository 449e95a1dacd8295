import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settledDeletions } from '../helpers/deletions.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, ok, otherProject, type RawEvent, uuid } from '../helpers/query-lists.js';

/** The persons resource on real stores: list filters, properties, deletion from both stores. */
let h: Harness;
let project: number;
let other: Awaited<ReturnType<typeof otherProject>>;

const ev = (event: string, distinct_id: string, properties: Record<string, unknown> = {}): RawEvent => ({
  event,
  distinct_id,
  timestamp: new Date().toISOString(),
  uuid: uuid(),
  properties,
});

type P = {
  id: string;
  uuid: string;
  name: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
};
const list = async (qs = '') => {
  const res = await h.request('GET', `/api/projects/${project}/persons/${qs}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { next: string | null; previous: string | null; results: P[] };
};
const byDistinct = async (d: string) => (await list(`?distinct_id=${encodeURIComponent(d)}`)).results[0];

beforeAll(async () => {
  h = await startHarness();
  project = h.boot.project_id;
  other = await otherProject(h);
  await capture(h, h.boot.project_api_key, project, [
    ev('$pageview', 'anon-1'),
    ev('$identify', 'ann', { $anon_distinct_id: 'anon-1', $set: { email: 'ann@example.com', plan: 'pro' } }),
    ev('$pageview', 'bob', { $set: { name: 'Bob', plan: 'free', age: 31 } }),
    ev('$pageview', 'cat', { $set: { plan: 'free' } }),
  ]);
  await capture(
    h,
    other.token,
    other.projectId,
    [ev('$pageview', 'ann', { $set: { email: 'x@other.example' } })],
    other.key,
  );
});
afterAll(async () => h?.close());

describe('persons list and retrieve', () => {
  it('lists the project’s persons with distinct ids and PostHog’s fields', async () => {
    const page = await list();
    expect(page.results).toHaveLength(3);
    const ann = page.results.find((p) => p.properties.email === 'ann@example.com');
    expect(ann).toMatchObject({ name: 'ann@example.com', distinct_ids: ['ann', 'anon-1'] });
    expect(ann?.id).toBe(ann?.uuid);
  });

  it('filters by distinct_id, email, search and properties; paginates with next', async () => {
    expect((await byDistinct('anon-1'))?.properties.email).toBe('ann@example.com');
    expect((await list('?email=ann@example.com')).results).toHaveLength(1);
    expect((await list('?search=BOB')).results.map((p) => p.properties.name)).toEqual(['Bob']);
    const props = encodeURIComponent(JSON.stringify([{ key: 'plan', value: 'free', type: 'person' }]));
    expect((await list(`?properties=${props}`)).results).toHaveLength(2);
    const first = await list('?limit=2');
    expect(first.results).toHaveLength(2);
    expect(first.next).toMatch(/offset=2/);
    const second = await h.request(
      'GET',
      new URL(first.next as string).pathname + new URL(first.next as string).search,
    );
    expect((second.json() as { results: P[]; next: null }).results).toHaveLength(1);
  });

  it('answers bad input with a 400 and other projects with 404/403', async () => {
    const bad = await h.request('GET', `/api/projects/${project}/persons/?properties=%7Bnot-json`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ type: 'validation_error', attr: 'properties' });
    const badOp = encodeURIComponent(JSON.stringify([{ key: 'plan', type: 'nonsense' }]));
    expect((await h.request('GET', `/api/projects/${project}/persons/?properties=${badOp}`)).statusCode).toBe(
      400,
    );
    const theirs = (
      await h.request('GET', `/api/projects/${other.projectId}/persons/`, { key: other.key })
    ).json() as {
      results: P[];
    };
    const mine = await h.request('GET', `/api/projects/${project}/persons/${theirs.results[0]?.id}/`);
    expect(mine.statusCode).toBe(404);
    expect((await h.request('GET', `/api/projects/${other.projectId}/persons/`)).statusCode).toBe(403);
    expect((await h.request('GET', `/api/projects/${project}/persons/not-a-uuid/`)).statusCode).toBe(404);
  });

  it('returns property values with counts', async () => {
    const res = await h.request('GET', `/api/projects/${project}/persons/values/?key=plan`);
    expect(res.json()).toEqual([
      { name: 'free', count: 2 },
      { name: 'pro', count: 1 },
    ]);
  });
});

describe('changing and deleting persons', () => {
  it('PATCHes, updates and deletes properties in both stores', async () => {
    const cat = (await byDistinct('cat')) as P;
    const patched = await h.request('PATCH', `/api/projects/${project}/persons/${cat.id}/`, {
      body: { properties: { tier: 'gold' } },
    });
    expect(patched.json()).toMatchObject({ properties: { plan: 'free', tier: 'gold' } });
    const upd = await h.request('POST', `/api/projects/${project}/persons/${cat.id}/update_property/`, {
      body: { key: 'score', value: 7 },
    });
    expect(upd.statusCode).toBe(202);
    const del = await h.request('POST', `/api/projects/${project}/persons/${cat.id}/delete_property/`, {
      body: { $unset: 'plan' },
    });
    expect(del.statusCode).toBe(201);
    const after = await h.request('GET', `/api/projects/${project}/persons/${cat.id}/`);
    expect((after.json() as P).properties).toEqual({ tier: 'gold', score: 7 });
    const inEngine = await ok(h, project, {
      kind: 'HogQLQuery',
      query: `SELECT properties.tier, properties.plan FROM persons WHERE id = '${cat.id}'`,
    });
    expect(inEngine.results).toEqual([['gold', null]]);
  });

  it('deletes a person from both stores; a later event makes a new person', async () => {
    const bob = (await byDistinct('bob')) as P;
    const res = await h.request('DELETE', `/api/projects/${project}/persons/${bob.id}/?delete_events=true`);
    expect(res.statusCode).toBe(204);
    await settledDeletions(h, project);
    expect((await h.request('GET', `/api/projects/${project}/persons/${bob.id}/`)).statusCode).toBe(404);
    const meta = await h.stores.meta.db
      .selectFrom('person_distinct_ids')
      .selectAll()
      .where('distinct_id', '=', 'bob')
      .execute();
    expect(meta).toEqual([]);
    const rows = await h.stores.events.query<{ n: number }>(
      `SELECT count() AS n FROM ${h.stores.events.table('person')} WHERE id = {id:UUID}`,
      { params: { id: bob.id } },
    );
    expect(Number(rows[0]?.n)).toBe(0);
    const pdi = await h.stores.events.query<{ n: number }>(
      `SELECT count() AS n FROM ${h.stores.events.table('person_distinct_id2')} WHERE distinct_id = 'bob'`,
    );
    expect(Number(pdi[0]?.n)).toBe(0);
    const events = await ok(h, project, {
      kind: 'HogQLQuery',
      query: `SELECT count() FROM events WHERE distinct_id = 'bob'`,
    });
    expect(events.results).toEqual([[0]]);

    await capture(h, h.boot.project_api_key, project, [
      ev('$pageview', 'bob', { $set: { name: 'Bob again' } }),
    ]);
    const again = (await byDistinct('bob')) as P;
    expect(again.id).not.toBe(bob.id);
    expect(again.properties).toEqual({ name: 'Bob again' });
    const ids = await ok(h, project, {
      kind: 'HogQLQuery',
      query: `SELECT DISTINCT person_id FROM events WHERE distinct_id = 'bob'`,
    });
    expect(ids.results).toEqual([[again.id]]);
  });

  it('bulk deletes by distinct id and by uuid, skipping unknown and other projects’ ids', async () => {
    const theirs = (
      await h.request('GET', `/api/projects/${other.projectId}/persons/`, { key: other.key })
    ).json() as {
      results: P[];
    };
    const none = await h.request('POST', `/api/projects/${project}/persons/bulk_delete/`, { body: {} });
    expect(none.statusCode).toBe(400);
    const tooMany = await h.request('POST', `/api/projects/${project}/persons/bulk_delete/`, {
      body: { distinct_ids: Array.from({ length: 1001 }, (_, i) => `d${i}`) },
    });
    expect(tooMany.statusCode).toBe(400);
    const res = await h.request('POST', `/api/projects/${project}/persons/bulk_delete/`, {
      body: { distinct_ids: ['ann', 'nobody'], ids: [theirs.results[0]?.id] },
    });
    expect(res.statusCode).toBe(202);
    expect(await byDistinct('ann')).toBeUndefined();
    const stillTheirs = (
      await h.request('GET', `/api/projects/${other.projectId}/persons/`, { key: other.key })
    ).json() as {
      results: P[];
    };
    expect(stillTheirs.results).toHaveLength(1);
  });
});
