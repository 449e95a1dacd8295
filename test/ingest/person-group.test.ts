import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PersonCache } from '../../src/domain/ingest/person-cache.js';
import { createPersonGroup, GroupRolledBack } from '../../src/domain/ingest/person-group.js';
import { emptyChanges } from '../../src/domain/ingest/persons.js';
import { findPersonByDistinctId } from '../../src/store/meta/persons.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * Concurrent requests' person work shares metadata transactions (person-group.ts): requests that
 * arrive while one runs go together into the next, in order; one request's failure rolls the shared
 * transaction back and every request in it is told to try again alone, so the others still land.
 */
describe(`shared person transactions (${backend})`, () => {
  let h: Harness;
  let teamId: number;
  beforeAll(async () => {
    h = await startHarness();
    teamId = h.boot.project_id;
  });
  afterAll(async () => h?.close());

  const events = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      event: '$pageview',
      distinctId: `${prefix}-${i}`,
      properties: { $set: { n: i } },
      timestamp: '2026-11-01T10:00:00.000Z',
    }));
  const person = (distinctId: string) => findPersonByDistinctId(h.stores.meta.db, teamId, distinctId);

  it('groups requests that arrive while a transaction runs, each seeing the earlier ones', async () => {
    const group = createPersonGroup(h.stores.meta.db, new PersonCache(), { maxEvents: 1600, concurrency: 1 });
    const [a, b, c] = await Promise.all([
      group.process(teamId, emptyChanges(), events('ga', 50)),
      group.process(teamId, emptyChanges(), events('gb', 50)),
      // Same distinct id as the second request: the third finds the person it created.
      group.process(teamId, emptyChanges(), [...events('gb', 1), ...events('gc', 10)]),
    ]);
    expect(a).toHaveLength(50);
    expect(b).toHaveLength(50);
    expect(c).toHaveLength(11);
    expect(c[0]?.personId).toBe(b[0]?.personId);
    expect((await person('ga-49'))?.id).toBe(a[49]?.personId);
    expect((await person('gc-9'))?.id).toBe(c[10]?.personId);
  });

  it('rolls back a failed group and lets every request retry alone', async () => {
    const group = createPersonGroup(h.stores.meta.db, new PersonCache(), { maxEvents: 1600, concurrency: 1 });
    const first = group.process(teamId, emptyChanges(), events('rb-first', 5));
    // These two share the next transaction; the second names a project that does not exist, so
    // its person insert fails (foreign key) and takes the first one's writes down with it.
    const good = group.process(teamId, emptyChanges(), events('rb-good', 5));
    const bad = group.process(999_999, emptyChanges(), events('rb-bad', 5));
    await first;
    await expect(good).rejects.toBeInstanceOf(GroupRolledBack);
    await expect(bad).rejects.toBeInstanceOf(GroupRolledBack);
    expect(await person('rb-good-0')).toBeUndefined();
    const retried = await group.alone(teamId, emptyChanges(), events('rb-good', 5));
    expect((await person('rb-good-4'))?.id).toBe(retried[4]?.personId);
    await expect(group.alone(999_999, emptyChanges(), events('rb-bad', 5))).rejects.not.toBeInstanceOf(
      GroupRolledBack,
    );
  });

  it('waits delayMs for more while other requests are in flight; alone, starts at once', async () => {
    let others = 0;
    let waiting = 0;
    const group = createPersonGroup(h.stores.meta.db, new PersonCache(), {
      maxEvents: 1600,
      concurrency: 1,
      delayMs: 50,
      inFlight: () => others + waiting,
    });
    const process = (prefix: string) => {
      waiting++;
      return group.process(teamId, emptyChanges(), events(prefix, 1)).finally(() => waiting--);
    };
    // Nobody else in flight (a client sending one request at a time): no wait.
    const start = performance.now();
    await process('dl-alone');
    expect(performance.now() - start).toBeLessThan(45);
    // Another request in flight (waiting for its write, say): requests arriving 5 ms apart share
    // one transaction, so the second sees the person the first created.
    others = 1;
    const first = process('dl-shared');
    await new Promise((r) => setTimeout(r, 5));
    const second = process('dl-shared');
    let settled = 0;
    for (const p of [first, second]) void p.then(() => settled++);
    await new Promise((r) => setTimeout(r, 10));
    expect(settled).toBe(0);
    const [a, b] = await Promise.all([first, second]);
    expect(b[0]?.personId).toBe(a[0]?.personId);
    // The other request leaves: what waits goes at once, without waiting out the delay.
    const third = process('dl-third');
    const left = performance.now();
    others = 0;
    group.poke();
    await third;
    expect(performance.now() - left).toBeLessThan(45);
  });

  it('through capture: concurrent requests of new persons all land', async () => {
    const send = (batch: unknown[]) =>
      h.request('POST', '/batch/', { key: null, body: { api_key: h.boot.project_api_key, batch } });
    const ok = Array.from({ length: 8 }, (_, i) =>
      send(
        events(`cap-${i}`, 20).map((e) => ({ event: e.event, distinct_id: e.distinctId, properties: {} })),
      ),
    );
    const answers = await Promise.all(ok);
    for (const a of answers) expect(a.statusCode, a.body).toBe(200);
    for (let i = 0; i < 8; i++) expect(await person(`cap-${i}-19`)).toBeDefined();
  });
});
