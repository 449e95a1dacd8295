import { call, field } from '../ast.js';
import { col, type FieldDef, type TableDef } from './fields.js';
import { rawEventColumns } from './raw.js';

const groupJoins: Record<string, FieldDef> = Object.fromEntries(
  [0, 1, 2, 3, 4].map((i) => [
    `group_${i}`,
    {
      kind: 'lazy_join',
      table: 'groups',
      join: 'LEFT JOIN',
      from: `$group_${i}`,
      to: 'key',
      where: { field: 'index', value: i },
    } satisfies FieldDef,
  ]),
);

/**
 * Events. `person_id` is the person the distinct id belongs to now (so merges apply to past
 * events), falling back to the id written at ingestion for distinct ids without a mapping
 * (personless events); `person` is that person's current row. `poe` reads the person as it was
 * when the event arrived, from the event row itself, without a join.
 */
export const events: TableDef = {
  name: 'events',
  physical: 'events',
  final: true,
  fields: {
    ...rawEventColumns,
    event_person_id: col('person_id', 'uuid', { hidden: true }),
    person_id: {
      kind: 'expression',
      data: 'uuid',
      hidden: true,
      expr: () =>
        call('if', [
          call('empty', [field('pdi', 'person_id')]),
          field('event_person_id'),
          field('pdi', 'person_id'),
        ]),
    },
    pdi: {
      kind: 'lazy_join',
      table: 'person_distinct_ids',
      join: 'LEFT JOIN',
      from: 'distinct_id',
      to: 'distinct_id',
    },
    person: { kind: 'traverser', chain: ['pdi', 'person'] },
    poe: {
      kind: 'virtual',
      fields: {
        id: col('person_id', 'uuid'),
        created_at: col('person_created_at', 'datetime'),
        properties: col('person_properties', 'json'),
      },
    },
    session: {
      kind: 'lazy_join',
      table: 'sessions',
      join: 'LEFT JOIN',
      from: '$session_id',
      to: 'session_id',
    },
    ...groupJoins,
  },
};
