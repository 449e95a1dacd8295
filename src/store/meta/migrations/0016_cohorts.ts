import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * Cohorts. Members live in the events store (`cohort_people`, events migration 0006) so HogQL can
 * join them; here is the definition and the state of its calculation: `version` names the member
 * rows of the last finished calculation, `pending_version` the one running (if any).
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const ts = sql.raw(t.timestamp);
  const bool = sql.raw(t.bool);
  const no = sql.raw(t.boolLiteral(false));
  await db.schema
    .createTable('cohorts')
    .addColumn('id', sql.raw(t.serial), (c) =>
      t.serial === 'serial' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', 'text')
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('filters', sql.raw(t.json))
    .addColumn('groups', sql.raw(t.json), (c) => c.notNull())
    .addColumn('is_static', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('deleted', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('count', 'integer')
    .addColumn('version', 'integer')
    .addColumn('pending_version', 'integer')
    .addColumn('is_calculating', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('last_calculation', ts)
    .addColumn('errors_calculating', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('last_error_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .execute();
  await db.schema.createIndex('cohorts_team').on('cohorts').columns(['team_id', 'deleted']).execute();
}
