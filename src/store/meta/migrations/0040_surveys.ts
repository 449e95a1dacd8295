import { type ColumnDefinitionBuilder, type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * Surveys, as PostHog keeps them: a UUID id, the questions, display conditions and appearance as
 * JSON documents read and written whole, and up to three flags (the user's linked flag, the
 * targeting flag built from `targeting_flag_filters`, the internal flag that hides the survey from
 * people who answered or dismissed it). A flag that is deleted leaves the survey without it.
 *
 * Early access features: a stage and the flag that people who opt in (a person property
 * `$feature_enrollment/<flag key>`) get; deleting the flag deletes the feature, as PostHog's FK does.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const ts = sql.raw(t.timestamp);
  const bool = sql.raw(t.bool);
  const flagRef = (c: ColumnDefinitionBuilder) => c.references('feature_flags.id').onDelete('set null');
  await db.schema
    .createTable('surveys')
    .addColumn('id', sql.raw(t.uuid), (c) => c.primaryKey())
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('questions', sql.raw(t.json), (c) => c.notNull())
    .addColumn('conditions', sql.raw(t.json))
    .addColumn('appearance', sql.raw(t.json))
    .addColumn('settings', sql.raw(t.json), (c) => c.notNull())
    .addColumn('linked_flag_id', 'integer', (c) => flagRef(c))
    .addColumn('targeting_flag_id', 'integer', (c) => flagRef(c))
    .addColumn('internal_targeting_flag_id', 'integer', (c) => flagRef(c))
    .addColumn('start_date', ts)
    .addColumn('end_date', ts)
    .addColumn('archived', bool, (c) => c.notNull().defaultTo(sql.raw(t.boolLiteral(false))))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('surveys_team').on('surveys').columns(['team_id', 'created_at']).execute();
  await db.schema
    .createTable('early_access_features')
    .addColumn('id', sql.raw(t.uuid), (c) => c.primaryKey())
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('feature_flag_id', 'integer', (c) => c.references('feature_flags.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('stage', 'text', (c) => c.notNull())
    .addColumn('documentation_url', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('payload', sql.raw(t.json), (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('early_access_features_team')
    .on('early_access_features')
    .columns(['team_id', 'created_at'])
    .execute();
}
