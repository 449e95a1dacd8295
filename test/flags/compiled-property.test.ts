import { describe, expect, it } from 'vitest';
import { compileProperty } from '../../src/domain/flags/compiled-property.js';
import { flagHash, flagHasher } from '../../src/domain/flags/hash.js';
import { matchProperty, PROPERTY_OPERATORS } from '../../src/domain/flags/properties.js';

/** Compiled matchers must answer exactly as `matchProperty`, the one statement of the semantics. */
describe('compiled property matchers', () => {
  const values: unknown[] = [
    'pro',
    'PRO',
    'Pro ',
    'enterprise',
    'true',
    'True',
    'false',
    true,
    false,
    0,
    1,
    21,
    '21',
    '21.5',
    33,
    '-3',
    'abc',
    '',
    null,
    ['pro', 'free'],
    [true],
    '1.2.0',
    'v1.4.0',
    '1.2',
    '1.2.0-beta',
    'ann@acme.com',
    'Ann@ACME.com',
    '@acme.com',
    '^[a-z]+@',
    { a: 1 },
    '2026-01-02',
    '-7d',
    [1, 5],
    'x'.repeat(3),
  ];
  const now = new Date('2026-06-01T00:00:00Z');
  it('agrees with matchProperty on every operator, expected value and property value', () => {
    for (const operator of [...PROPERTY_OPERATORS, undefined, null, 'unknown_op'])
      for (const expected of [...values, undefined])
        for (const filterType of ['person', 'group']) {
          const filter = { key: 'k', operator, value: expected, type: filterType };
          const compiled = compileProperty(filter);
          for (const actual of values) {
            const props = { k: actual };
            const want = (() => {
              try {
                return matchProperty(filter, props, now);
              } catch (e) {
                return (e as Error).constructor.name;
              }
            })();
            const got = (() => {
              try {
                return compiled(props, now);
              } catch (e) {
                return (e as Error).constructor.name;
              }
            })();
            if (got !== want)
              expect({ operator, expected, actual, got }).toEqual({ operator, expected, actual, got: want });
          }
          expect(compiled({}, now)).toBe(matchProperty(filter, {}, now));
        }
  });
});

describe('a flag key packed once', () => {
  it('hashes as flagHash does, for any key and identifier', () => {
    const keys = ['k', 'bench-flag-12', 'clé', 'x'.repeat(47), 'y'.repeat(48), 'z'.repeat(60), ''];
    const ids = ['u', 'user-1', 'ü-4', '🦔', 'a'.repeat(40), 'b'.repeat(100), ''];
    for (const key of keys) {
      const hash = flagHasher(key);
      for (const id of ids)
        for (const salt of ['', 'variant'] as const) expect(hash(id, salt)).toBe(flagHash(key, id, salt));
    }
  });
});
