import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PersonCache } from '../../src/domain/ingest/person-cache.js';
import { emptyChanges, processPersons } from '../../src/domain/ingest/persons.js';
import { findPersonByDistinctId } from '../../src/store/meta/persons.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * `processPersons` (what capture uses) looks up unknown distinct ids in one statement and inserts
 * new persons together at the end or before the next statement on persons. The results must be
 * those of processing the events one by one.
 */
describe(`person processing of a whole request (${backend})`, () => {
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
  type In = { event: string; distinctId: string; properties?: Record<string, unknown> };
  async function run(events: In[], cache = new PersonCache()) {
    const changes = emptyChanges();
    const out = await h.stores.meta.db.transaction().execute((trx) =>
      processPersons(
        trx,
        teamId,
        changes,
        cache,
        events.map((e) => ({ ...e, properties: e.properties ?? {}, timestamp: at })),
      ),
    );
    return { out, changes };
  }
  const person = (distinctId: string) => findPersonByDistinctId(h.stores.meta.db, teamId, distinctId);

  it('creates many new persons in one request, each once, and finds them in the store after', async () => {
    const ids = Array.from({ length: 120 }, (_, i) => `b-new-${i}`);
    // Every id twice: the second sight must reuse the person created (not yet written) by the first.
    const { out, changes } = await run([...ids, ...ids].map((distinctId) => ({ event: 'e', distinctId })));
    expect(new Set(out.map((o) => o.personId)).size).toBe(120);
    expect(out[0]?.personId).toBe(out[120]?.personId);
    expect(changes.distinctIds).toHaveLength(120);
    for (const i of [0, 57, 119]) expect((await person(`b-new-${i}`))?.id).toBe(out[i]?.personId);
  });

  it('gives new persons time-ordered UUIDv7 ids, so their index inserts land at its end', async () => {
    const before = Date.now();
    const { out } = await run(
      Array.from({ length: 50 }, (_, i) => ({ event: 'e', distinctId: `b-v7-${i}` })),
    );
    const after = Date.now();
    for (const { personId } of out) {
      expect(personId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const ms = Number.parseInt(personId.replace('-', '').slice(0, 12), 16);
      expect(ms).toBeGreaterThanOrEqual(before);
      expect(ms).toBeLessThanOrEqual(after);
    }
    expect(new Set(out.map((o) => o.personId)).size).toBe(50);
  });

  it('updates, identifies and merges persons created earlier in the same request', async () => {
    const { out } = await run([
      { event: 'e', distinctId: 'b-anon', properties: { $set: { a: 1 } } },
      { event: 'e', distinctId: 'b-other' },
      { event: 'e', distinctId: 'b-anon', properties: { $set_once: { first: 'x' } } },
      {
        event: '$identify',
        distinctId: 'b-user',
        properties: { $anon_distinct_id: 'b-anon', $set: { b: 2 } },
      },
      { event: '$create_alias', distinctId: 'b-user', properties: { alias: 'b-alias' } },
      // Two existing persons: b-other is folded into b-user and deleted.
      { event: '$merge_dangerously', distinctId: 'b-user', properties: { alias: 'b-other' } },
      { event: 'e', distinctId: 'b-fresh' },
    ]);
    const user = await person('b-user');
    expect(user?.id).toBe(out[0]?.personId);
    expect(user?.isIdentified).toBe(true);
    expect(user?.properties).toEqual({ a: 1, first: 'x', b: 2 });
    for (const d of ['b-anon', 'b-alias', 'b-other']) expect((await person(d))?.id).toBe(user?.id);
    expect(out[5]?.personId).toBe(user?.id);
    expect((await person('b-fresh'))?.id).toBe(out[6]?.personId);
    expect(out[6]?.personId).not.toBe(user?.id);
  });

  it('works with a cache that keeps nothing, and sees persons of earlier requests', async () => {
    await run([{ event: 'e', distinctId: 'b-known', properties: { $set: { k: 1 } } }]);
    const { out, changes } = await run(
      [
        { event: 'e', distinctId: 'b-known', properties: { $set: { k: 2 } } },
        { event: 'e', distinctId: 'b-unknown' },
        { event: 'e', distinctId: 'b-unknown' },
      ],
      new PersonCache(0),
    );
    expect(out[0]?.personProperties).toEqual({ k: 2 });
    expect(out[1]?.personId).toBe(out[2]?.personId);
    expect(changes.distinctIds.map((d) => d.distinctId)).toEqual(['b-unknown']);
    expect((await person('b-known'))?.properties).toEqual({ k: 2 });
  });
});
