import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLineReader } from '../../src/domain/destinations/line-fields.js';
import {
  decodeLine,
  fieldsNeeded,
  matchesAction,
  matchesFilters,
} from '../../src/domain/destinations/matching.js';
import type { ActionStep } from '../../src/store/meta/actions.js';
import { encodedEvent } from '../helpers/event-line.js';

/**
 * The matcher reads of each line only the fields the filters name (line-fields.ts) and decodes a
 * line whole only once it passes. The oracle is the whole decode (`JSON.parse`): for any event
 * `eventLine` can write and any filters, matching the partial read must answer what matching the
 * decoded event answers, and every property it read must equal the decoded one.
 */
const NOW = new Date('2026-11-29T12:00:00.000Z');

const encode = encodedEvent;

// Keys that collide in length, need escapes, or are special to objects.
const KEYS = [
  'plan',
  'deliver',
  'a"b',
  'é',
  '\\',
  '__proto__',
  'constructor',
  '$current_url',
  'x.y',
  'plan2',
  '',
];
const key = fc.constantFrom(...KEYS);
const value = fc.oneof(
  fc.string(),
  fc.constantFrom('scale', 'free', 'true', '\u2028', '{"a":1}', '\\"'),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 3 }),
  fc.dictionary(key, fc.oneof(fc.string(), fc.integer(), fc.constant('}')), { maxKeys: 3 }),
);
// `fc.dictionary` builds plain objects (a `__proto__` key included, as an own property).
const properties = fc.dictionary(key, value, { maxKeys: 6 });
const operator = fc.constantFrom(
  'exact',
  'is_not',
  'is_set',
  'is_not_set',
  'icontains',
  'not_icontains',
  'regex',
  'gt',
  'lt',
);
const filter = fc.record({
  key,
  type: fc.constantFrom('event', 'person'),
  operator,
  value: fc.oneof(
    fc.constantFrom('scale', 'true', 'a', '1'),
    fc.array(fc.constantFrom('scale', 'free', 'true')),
  ),
});
const filters = fc.record({
  events: fc.array(
    fc.record({
      id: fc.constantFrom('bench', 'other', 'a"b'),
      properties: fc.array(filter, { maxLength: 2 }),
    }),
    { maxLength: 2 },
  ),
  properties: fc.array(filter, { maxLength: 3 }),
  filter_test_accounts: fc.boolean(),
});

describe('reading only the fields filters name from an encoded line', () => {
  it('matches as the decoded event does, for any event and filters', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('bench', 'other', 'a"b', 'ünï\\cødé'),
        properties,
        properties,
        fc.array(filters, { minLength: 1, maxLength: 3 }),
        fc.array(filter, { maxLength: 2 }),
        // A backslash anywhere in a line takes the reader off its fast path (no escapes).
        fc.constantFrom('d', 'd"\\', 'ü'),
        (event, props, personProps, fns, testAccountFilters, distinctId) => {
          const line = encode(event, props, personProps, distinctId);
          const whole = decodeLine(line);
          const fnList = fns.map((f) => ({ filters: f as Record<string, unknown> }));
          const needs = fieldsNeeded(fnList, [], new Map(), testAccountFilters);
          const partial = createLineReader(needs)(line, 7);
          expect(partial).toBeDefined();
          expect(partial!.event).toBe(whole.event);
          for (const k of needs.eventProperties)
            expect(Object.hasOwn(partial!.properties, k)).toBe(Object.hasOwn(whole.properties, k));
          for (const k of needs.eventProperties)
            if (Object.hasOwn(whole.properties, k))
              expect(partial!.properties[k]).toEqual(whole.properties[k]);
          for (const k of needs.personProperties)
            if (Object.hasOwn(whole.personProperties, k))
              expect(partial!.personProperties[k]).toEqual(whole.personProperties[k]);
          const ctx = { actions: new Map(), testAccountFilters, now: NOW };
          for (const f of fnList)
            expect(matchesFilters(f.filters, partial!, ctx)).toBe(matchesFilters(f.filters, whole, ctx));
        },
      ),
      { numRuns: 2000, seed: 20261129 },
    );
  });

  it('reads the URL and elements action steps look at', () => {
    const steps: ActionStep[] = [
      { event: 'click', url: '/pricing', url_matching: 'contains', text: 'Buy' } as ActionStep,
    ];
    const line = encode(
      'click',
      { $current_url: 'https://x.io/pricing?a=1', $elements_chain: 'button:text="Buy now"', n: 1 },
      {},
    );
    const needs = fieldsNeeded([], [{ steps }], new Map(), []);
    expect([...needs.eventProperties]).toEqual(['$current_url']);
    expect(needs.elementsChain).toBe(true);
    const partial = createLineReader(needs)(line, 7)!;
    expect(partial.elementsChain).toBe('button:text="Buy now"');
    expect(matchesAction(steps, partial, NOW)).toBe(true);
    expect(matchesAction(steps, decodeLine(line), NOW)).toBe(true);
  });

  it('answers nothing for a line of another shape, so the caller decodes it whole', () => {
    const read = createLineReader({
      eventProperties: new Set(['a']),
      personProperties: new Set(),
      elementsChain: false,
    });
    expect(read('{"uuid":"u","properties":{"a":1}}', 7)).toBeUndefined(); // no event
    expect(read('{"event":"e","properties":{"a":1', 7)).toBeUndefined(); // cut short
    expect(read('{"event":"e","properties":[1]}', 7)).toBeUndefined();
    expect(read('not json', 7)).toBeUndefined();
    expect(read('{"event":"e","properties":{"a":1}}', 7)?.properties.a).toBe(1);
  });
});
