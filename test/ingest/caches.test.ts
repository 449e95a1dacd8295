import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { enrichFromCache, personPropertiesJson } from '../../src/domain/ingest/cached-persons.js';
import { PersonCache } from '../../src/domain/ingest/person-cache.js';
import { applyPersonUpdates } from '../../src/domain/ingest/person-updates.js';
import { RecentUuids } from '../../src/domain/ingest/recent-uuids.js';
import type { PersonRecord } from '../../src/store/meta/persons.js';

const person = (id: string): PersonRecord => ({
  id,
  teamId: 1,
  properties: {},
  isIdentified: false,
  version: 0,
  createdAt: '2026-11-01T00:00:00.000Z',
});

describe('capture caches (two generations)', () => {
  it("a cached person's properties text follows every change: in place with a new version, or a new object", () => {
    const p = person('P');
    p.properties = { plan: 'free', $initial_browser: 'Chrome' };
    const first = personPropertiesJson(p);
    expect(first).toBe(JSON.stringify(p.properties));
    expect(personPropertiesJson(p)).toBe(first); // the memo, not a new string
    // As persons.ts changes a person: the properties in place, then the version.
    expect(applyPersonUpdates(p.properties, { $set: { plan: 'pro' } })).toBe(true);
    p.version += 1;
    expect(JSON.parse(personPropertiesJson(p))).toEqual({ plan: 'pro', $initial_browser: 'Chrome' });
    // A merge replaces the object (same version here, to show the object alone is enough).
    p.properties = { ...p.properties, email: 'a@b.test' };
    expect(JSON.parse(personPropertiesJson(p))).toEqual({
      plan: 'pro',
      $initial_browser: 'Chrome',
      email: 'a@b.test',
    });

    // enrichFromCache hands eventLine the same text, taken when the request is enriched.
    const cache = new PersonCache();
    cache.set(1, 'd1', p);
    const [enriched] =
      enrichFromCache(cache, 1, [
        { event: 'e', distinctId: 'd1', properties: {}, timestamp: '2026-11-01T00:00:00.000Z' },
      ]) ?? [];
    expect(enriched?.personPropertiesJson).toBe(JSON.stringify(p.properties));
  });

  it('person cache: keeps between max/2 and max entries, a hit in the old generation survives', () => {
    const cache = new PersonCache(4); // generations of 2
    cache.set(1, 'a', person('A'));
    cache.set(1, 'b', person('B'));
    cache.set(1, 'c', person('C')); // new generation: {c}; old: {a, b}
    expect(cache.get(1, 'a')?.id).toBe('A'); // moved to the new one: {c, a}
    cache.set(1, 'd', person('D')); // new: {d}; old: {c, a}; b is gone
    expect(cache.get(1, 'b')).toBeUndefined();
    expect(cache.get(1, 'a')?.id).toBe('A');
    expect(cache.get(2, 'a')).toBeUndefined(); // teams apart
    cache.set(1, 'd', person('D2'));
    expect(cache.get(1, 'd')?.id).toBe('D2');
    cache.forget(1, ['a', 'd']);
    expect(cache.get(1, 'a')).toBeUndefined();
    expect(cache.get(1, 'd')).toBeUndefined();
    expect(new PersonCache(0).get(1, 'x')).toBeUndefined();
  });

  it('recent uuids: a uuid is known until two generations have passed after it', () => {
    const recent = new RecentUuids(4); // generations of 2
    recent.remember(1, ['u1', 'u2']);
    recent.remember(1, ['u3']); // new: {u3}; old: {u1, u2}
    expect([recent.has(1, 'u1'), recent.has(1, 'u3'), recent.has(2, 'u1')]).toEqual([true, true, false]);
    recent.remember(1, ['u4', 'u5']); // u4 joins {u3}; u5 starts {u5}, old: {u3, u4}
    expect(['u1', 'u2', 'u3', 'u4', 'u5'].map((u) => recent.has(1, u))).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
  });

  it('recent uuids: uuids (the table) and other strings (a Set) follow the same generations, by project', () => {
    const max = 64;
    const recent = new RecentUuids(max);
    // A model of the same rule: two generations of Sets, a new one once the current holds max / 2.
    let current = new Set<string>();
    let previous = new Set<string>();
    const pool = Array.from({ length: 200 }, (_, i) =>
      i % 10 === 0 ? `not-a-uuid-${i}` : i % 10 === 1 ? randomUUID().toUpperCase() : randomUUID(),
    );
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    for (let step = 0; step < 5_000; step++) {
      const team = 1 + (next() % 3);
      const uuid = pool[next() % pool.length] as string;
      const key = `${team}/${uuid}`;
      expect(recent.has(team, uuid), `step ${step}`).toBe(current.has(key) || previous.has(key));
      if (next() % 2 === 0) {
        recent.remember(team, [uuid]);
        if (current.size >= max / 2) {
          previous = current;
          current = new Set();
        }
        current.add(key);
      }
    }
    // The same 128 bits for another project, or spelled differently, are not the same event.
    const uuid = randomUUID();
    recent.remember(1, [uuid]);
    expect([recent.has(1, uuid), recent.has(2, uuid), recent.has(2 ** 32 + 1, uuid)]).toEqual([
      true,
      false,
      false,
    ]);
    expect(recent.has(1, uuid.toUpperCase())).toBe(false);
    expect(recent.has(1, `${uuid.slice(0, 35)}\u0130`)).toBe(false);
  });
});
