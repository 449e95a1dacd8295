import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersonProcessor, emptyChanges, type PersonChanges } from '../../src/domain/ingest/persons.js';
import { findPersonByDistinctId } from '../../src/store/meta/persons.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

describe(`person processing (${backend})`, () => {
  let h: Harness;
  let teamId: number;
  beforeAll(async () => {
    h = await startHarness();
    teamId = h.boot.project_id;
  });
  afterAll(async () => {
    await h?.close();
  });

  const at = '2026-11-01T10:00:00.000Z';
  async function run(
    events: Array<{ event: string; distinctId: string; properties?: Record<string, unknown> }>,
  ) {
    const changes: PersonChanges = emptyChanges();
    const out = await h.stores.meta.db.transaction().execute(async (trx) => {
      const process = createPersonProcessor(trx, teamId, changes);
      const results = [];
      for (const e of events)
        results.push(await process({ ...e, properties: e.properties ?? {}, timestamp: at }));
      return results;
    });
    return { out, changes };
  }
  const person = (distinctId: string) => findPersonByDistinctId(h.stores.meta.db, teamId, distinctId);

  it('creates a person on first sight and applies $set, $set_once and $unset in order', async () => {
    const { out } = await run([
      {
        event: 'pageview',
        distinctId: 'u1',
        properties: { $set: { plan: 'free', a: 1 }, $set_once: { first: 'x' } },
      },
      {
        event: 'pageview',
        distinctId: 'u1',
        properties: { $set: { plan: 'pro' }, $set_once: { first: 'y' } },
      },
      { event: 'pageview', distinctId: 'u1', properties: { $unset: ['a'] } },
    ]);
    expect(out[0]?.personProperties).toEqual({ plan: 'free', a: 1, first: 'x' });
    expect(out[1]?.personProperties).toEqual({ plan: 'pro', a: 1, first: 'x' });
    expect(out[2]?.personProperties).toEqual({ plan: 'pro', first: 'x' });
    expect(new Set(out.map((o) => o.personId)).size).toBe(1);
    expect((await person('u1'))?.properties).toEqual({ plan: 'pro', first: 'x' });
  });

  it('$identify folds the anonymous person into the identified one and marks it identified', async () => {
    await run([{ event: 'pageview', distinctId: 'anon-1', properties: { $set: { seen: 'anon' } } }]);
    const anon = await person('anon-1');
    const { out, changes } = await run([
      {
        event: '$identify',
        distinctId: 'user-1',
        properties: { $anon_distinct_id: 'anon-1', $set: { email: 'a@b.c' } },
      },
    ]);
    const identified = await person('user-1');
    expect(identified?.id).toBe(anon?.id);
    expect(identified?.isIdentified).toBe(true);
    expect(identified?.properties).toEqual({ seen: 'anon', email: 'a@b.c' });
    expect(out[0]?.personId).toBe(anon?.id);
    expect(changes.distinctIds.map((d) => d.distinctId)).toEqual(['user-1']);
  });

  it('merges two existing persons, keeping every distinct id on one of them', async () => {
    await run([
      { event: 'e', distinctId: 'a-2', properties: { $set: { k: 'anon', only_anon: 1 } } },
      { event: 'e', distinctId: 'u-2', properties: { $set: { k: 'user' } } },
    ]);
    const before = await person('a-2');
    const { changes } = await run([
      { event: '$identify', distinctId: 'u-2', properties: { $anon_distinct_id: 'a-2' } },
    ]);
    const [a, u] = [await person('a-2'), await person('u-2')];
    expect(a?.id).toBe(u?.id);
    expect(u?.properties).toEqual({ k: 'user', only_anon: 1 });
    const deleted = [...changes.persons.values()].filter((p) => p.isDeleted);
    expect(deleted.map((p) => p.id)).toEqual([before?.id]);
  });

  it('does not merge two identified persons through $identify, but $merge_dangerously does', async () => {
    await run([
      { event: '$identify', distinctId: 'x-3', properties: { $anon_distinct_id: 'xa-3' } },
      { event: '$identify', distinctId: 'y-3', properties: { $anon_distinct_id: 'ya-3' } },
    ]);
    await run([{ event: '$identify', distinctId: 'x-3', properties: { $anon_distinct_id: 'y-3' } }]);
    expect((await person('x-3'))?.id).not.toBe((await person('y-3'))?.id);
    await run([{ event: '$merge_dangerously', distinctId: 'x-3', properties: { alias: 'y-3' } }]);
    expect((await person('x-3'))?.id).toBe((await person('y-3'))?.id);
    expect((await person('ya-3'))?.id).toBe((await person('x-3'))?.id);
  });

  it('$create_alias adds the alias to the person', async () => {
    await run([{ event: '$create_alias', distinctId: 'main-4', properties: { alias: 'alias-4' } }]);
    expect((await person('alias-4'))?.id).toBe((await person('main-4'))?.id);
  });

  it('$groupidentify stores the group and $groups fills the group columns by type index', async () => {
    const { out, changes } = await run([
      {
        event: '$groupidentify',
        distinctId: 'g-5',
        properties: { $group_type: 'company', $group_key: 'acme', $group_set: { size: 5 } },
      },
      { event: 'e', distinctId: 'g-5', properties: { $groups: { company: 'acme', project: 42 } } },
    ]);
    expect([...changes.groups.values()]).toMatchObject([
      { groupTypeIndex: 0, groupKey: 'acme', properties: { size: 5 } },
    ]);
    expect(out[1]?.groups).toEqual(['acme', '42', '', '', '']);
  });
});

describe(`person cache across two API nodes (${backend})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a stale cached person makes the write conflict and the request is redone, losing no update', async () => {
    const { createIngestPipeline } = await import('../../src/domain/ingest/pipeline.js');
    const { findTeam } = await import('../../src/store/meta/teams.js');
    const team = (await findTeam(h.stores.meta.db, h.boot.project_id))!;
    const options = { maxRows: 1000, maxDelayMs: 1, maxPendingRows: 100_000 };
    const nodeA = createIngestPipeline(h.deps, options);
    const nodeB = createIngestPipeline(h.deps, options);
    let n = 0;
    const event = (properties: Record<string, unknown>) => ({
      uuid: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
      event: 'e',
      distinctId: 'shared',
      properties,
      timestamp: '2026-11-01T00:00:00.000Z',
    });
    await nodeA.ingest(team, [event({ $set: { a: 1 } })]); // A now caches the person at version 1
    await nodeB.ingest(team, [event({ $set: { b: 2 } })]); // B moves it to version 2
    await nodeA.ingest(team, [event({ $set: { c: 3 } })]); // A's cache is stale: conflict, then redo
    const person = await findPersonByDistinctId(h.stores.meta.db, team.id, 'shared');
    expect(person?.properties).toEqual({ a: 1, b: 2, c: 3 });
    expect(person?.version).toBe(3);
    await Promise.all([nodeA.close(), nodeB.close()]);
  });
});
