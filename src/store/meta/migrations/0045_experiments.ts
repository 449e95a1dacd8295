import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * Experiments (docs/experiments.md): an A/B test on one feature flag. The searchable and
 * state-bearing fields are columns; the rest of PostHog's fields (parameters, metrics, exposure
 * criteria, stats config, conclusion) travel together as one JSON text `config`.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const ts = sql.raw(t.timestamp);
  const bool = sql.raw(t.bool);
  const no = sql.raw(t.boolLiteral(false));
  await db.schema
    .createTable('experiments')
    .addColumn('id', sql.raw(t.serial), (c) =>
      t.serial === 'serial' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('feature_flag_id', 'integer', (c) => c.notNull().references('feature_flags.id'))
    .addColumn('start_date', ts)
    .addColumn('end_date', ts)
    .addColumn('archived', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('deleted', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('experiments_team').on('experiments').columns(['team_id', 'deleted']).execute();
  await db.schema.createIndex('experiments_flag').on('experiments').columns(['feature_flag_id']).execute();
}
