import type { PropertyType } from './types.js';

/** PostHog's property value types, as property definitions record them. */
export type PropertyValueType = 'String' | 'Numeric' | 'Boolean' | 'DateTime' | 'Duration';

/** Where a property lives: event, person, or a group type's properties. */
export type PropertySource = { kind: 'event' } | { kind: 'person' } | { kind: 'group'; index: number };

/** Declared types by source and key; undefined when the key has no (typed) definition. */
export type PropertyTypeLookup = (source: PropertySource, key: string) => PropertyValueType | undefined;

/**
 * Which definitions a property access is typed by, as PostHog's property swapper decides: only
 * single-key access (`properties.amount`, not `properties.a.b`) on event properties, person
 * properties (on events or the persons tables) and a group join's properties.
 */
export function propertySourceOf(t: PropertyType): PropertySource | undefined {
  if (t.chain.length !== 1 || typeof t.chain[0] !== 'string') return undefined;
  if (t.def === 'events' && t.column === 'properties') return { kind: 'event' };
  if (t.def === 'events' && t.column === 'person_properties') return { kind: 'person' };
  if ((t.def === 'persons' || t.def === 'raw_persons') && t.column === 'properties')
    return { kind: 'person' };
  if (t.def === 'groups' && t.column === 'properties') {
    const m = /__group_(\d)$/.exec(t.table);
    if (m) return { kind: 'group', index: Number(m[1]) };
  }
  return undefined;
}

/**
 * The typed value of a property read as `sql` (a Nullable(String)), as PostHog converts it:
 * Numeric → Float (unparsable → NULL), Boolean → Bool from 'true'/'false' (else NULL),
 * DateTime → DateTime64 in the query's zone. String and unknown types stay strings.
 */
export function typedPropertySql(sql: string, type: PropertyValueType | undefined, zone: string): string {
  switch (type) {
    case 'Numeric':
      return `toFloat64OrNull(${sql})`;
    case 'Boolean':
      return `toBool(transform(${sql}, ['true', 'false'], [1, 0], NULL))`;
    case 'DateTime':
      return `parseDateTime64BestEffortOrNull(${sql}, 6, ${zone})`;
    default:
      return sql;
  }
}
