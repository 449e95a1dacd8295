import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * Event and property definitions, collected at ingestion (batched, see domain/definitions), and the
 * event → property pairs behind `property_definitions/?event_names=`. A property definition is
 * keyed by (team, type, group type index, name); `group_type_index` is -1 for non-group types so
 * the key needs no NULL handling. `property_type` is set once, by the first typed value seen
 * (PostHog's rule: the first detected type wins and later values do not change it).
 * Group types get the display names `groups_types/` PATCHes.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const ts = sql.raw(t.timestamp);
  const bool = sql.raw(t.bool);
  const no = sql.raw(t.boolLiteral(false));
  await db.schema
    .createTable('event_definitions')
    .addColumn('id', sql.raw(t.uuid), (c) => c.primaryKey())
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('tags', sql.raw(t.json), (c) => c.notNull())
    .addColumn('verified', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('verified_at', ts)
    .addColumn('hidden', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts)
    .addColumn('last_seen_at', ts)
    .addUniqueConstraint('event_definitions_name', ['team_id', 'name'])
    .execute();

  await db.schema
    .createTable('property_definitions')
    .addColumn('id', sql.raw(t.uuid), (c) => c.primaryKey())
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('group_type_index', 'integer', (c) => c.notNull().defaultTo(-1))
    .addColumn('property_type', 'text')
    .addColumn('is_numerical', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('description', 'text')
    .addColumn('tags', sql.raw(t.json), (c) => c.notNull())
    .addColumn('verified', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('verified_at', ts)
    .addColumn('hidden', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('updated_at', ts)
    .addUniqueConstraint('property_definitions_key', ['team_id', 'type', 'group_type_index', 'name'])
    .execute();

  await db.schema
    .createTable('event_properties')
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('property', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('event_properties_pk', ['team_id', 'event', 'property'])
    .execute();
  await db.schema
    .createIndex('event_properties_property')
    .on('event_properties')
    .columns(['team_id', 'property'])
    .execute();

  await db.schema.alterTable('group_type_mappings').addColumn('name_singular', 'text').execute();
  await db.schema.alterTable('group_type_mappings').addColumn('name_plural', 'text').execute();
}
