import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/** Persons, their distinct ids and groups: the source of truth, mirrored to the events store. */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const ts = sql.raw(t.timestamp);
  await db.schema
    .createTable('persons')
    .addColumn('id', sql.raw(t.uuid), (c) => c.primaryKey())
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('properties', sql.raw(t.json), (c) => c.notNull())
    .addColumn('is_identified', sql.raw(t.bool), (c) => c.notNull().defaultTo(sql.raw(t.boolLiteral(false))))
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('persons_team_id').on('persons').column('team_id').execute();

  await db.schema
    .createTable('person_distinct_ids')
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('distinct_id', 'text', (c) => c.notNull())
    .addColumn('person_id', sql.raw(t.uuid), (c) => c.notNull().references('persons.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('person_distinct_ids_pk', ['team_id', 'distinct_id'])
    .execute();
  await db.schema
    .createIndex('person_distinct_ids_person')
    .on('person_distinct_ids')
    .column('person_id')
    .execute();

  await db.schema
    .createTable('group_type_mappings')
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('group_type', 'text', (c) => c.notNull())
    .addColumn('group_type_index', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('group_type_mappings_pk', ['team_id', 'group_type'])
    .addUniqueConstraint('group_type_mappings_index', ['team_id', 'group_type_index'])
    .execute();

  await db.schema
    .createTable('groups')
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('group_type_index', 'integer', (c) => c.notNull())
    .addColumn('group_key', 'text', (c) => c.notNull())
    .addColumn('properties', sql.raw(t.json), (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('groups_pk', ['team_id', 'group_type_index', 'group_key'])
    .execute();
}
