import { describe, expect, it } from 'vitest';
import { PersonCache } from '../../src/domain/ingest/person-cache.js';
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
});
