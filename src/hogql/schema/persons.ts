import { call, compare, constant, field } from '../ast.js';
import { col, type TableDef } from './fields.js';
import { lazySelect } from './lazy.js';

const latest = (name: string) => () => call('argMax', [field(name), field('version')]);
const notDeleted = () => compare('==', call('argMax', [field('is_deleted'), field('version')]), constant(0));

/** The latest version of each person that is not deleted. */
export const persons: TableDef = {
  name: 'persons',
  fields: {
    id: col('id', 'uuid'),
    created_at: col('created_at', 'datetime'),
    properties: col('properties', 'json'),
    is_identified: col('is_identified', 'boolean'),
  },
  lazy: (requested) =>
    lazySelect({
      from: 'raw_persons',
      exprs: {
        id: () => field('id'),
        created_at: latest('created_at'),
        properties: latest('properties'),
        is_identified: latest('is_identified'),
      },
      requested,
      always: ['id'],
      groupBy: ['id'],
      having: notDeleted,
    }),
};

/** Which person each distinct id belongs to now. */
export const personDistinctIds: TableDef = {
  name: 'person_distinct_ids',
  fields: {
    distinct_id: col('distinct_id', 'string'),
    person_id: col('person_id', 'uuid'),
    person: { kind: 'lazy_join', table: 'persons', join: 'LEFT JOIN', from: 'person_id', to: 'id' },
  },
  lazy: (requested) =>
    lazySelect({
      from: 'raw_person_distinct_ids',
      exprs: { distinct_id: () => field('distinct_id'), person_id: latest('person_id') },
      requested,
      always: ['distinct_id', 'person_id'],
      groupBy: ['distinct_id'],
      having: notDeleted,
    }),
};

/** The latest properties of each group. */
export const groups: TableDef = {
  name: 'groups',
  fields: {
    index: col('index', 'integer'),
    key: col('key', 'string'),
    created_at: col('created_at', 'datetime'),
    updated_at: col('updated_at', 'datetime'),
    properties: col('properties', 'json'),
  },
  lazy: (requested) =>
    lazySelect({
      from: 'raw_groups',
      exprs: {
        index: () => field('index'),
        key: () => field('key'),
        created_at: latest('created_at'),
        updated_at: () => call('max', [field('updated_at')]),
        properties: latest('properties'),
      },
      requested,
      always: ['index', 'key'],
      groupBy: ['index', 'key'],
    }),
};
