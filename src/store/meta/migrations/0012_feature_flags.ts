import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * Feature flags, as PostHog keeps them: the targeting lives in one `filters` JSON document (condition
 * groups, variants, payloads), read and written whole. A key is unique among a project's live flags
 * only, so a deleted flag's key can be reused (a partial unique index; both engines have them).
 * `version` counts edits for PostHog's optimistic concurrency check.
 *
 * Experience continuity: the bucketing key a person was first seen with, per flag key.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const ts = sql.raw(t.timestamp);
  const bool = sql.raw(t.bool);
  const no = sql.raw(t.boolLiteral(false));
  await db.schema
    .createTable('feature_flags')
    .addColumn('id', sql.raw(t.serial), (c) =>
      t.serial === 'serial' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('filters', sql.raw(t.json), (c) => c.notNull())
    .addColumn('active', bool, (c) => c.notNull().defaultTo(sql.raw(t.boolLiteral(true))))
    .addColumn('deleted', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('ensure_experience_continuity', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('evaluation_runtime', 'text', (c) => c.notNull().defaultTo('all'))
    .addColumn('tags', sql.raw(t.json), (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addColumn('last_modified_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .execute();
  await db.schema
    .createIndex('feature_flags_live_key')
    .on('feature_flags')
    .columns(['team_id', 'key'])
    .unique()
    .where(sql.ref('deleted'), '=', sql.raw(t.boolLiteral(false)))
    .execute();
  await db.schema
    .createIndex('feature_flags_team')
    .on('feature_flags')
    .columns(['team_id', 'deleted'])
    .execute();

  await db.schema
    .createTable('feature_flag_hash_key_overrides')
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('person_id', sql.raw(t.uuid), (c) => c.notNull().references('persons.id').onDelete('cascade'))
    .addColumn('feature_flag_key', 'text', (c) => c.notNull())
    .addColumn('hash_key', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('feature_flag_hash_key_overrides_pk', [
      'team_id',
      'person_id',
      'feature_flag_key',
    ])
    .execute();
}
