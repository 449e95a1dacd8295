import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * Experiment holdouts and saved metrics (docs/experiments.md): both a named JSON document per
 * project (`body`: a holdout's `filters`, a saved metric's `query` and `metadata`).
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const ts = sql.raw(t.timestamp);
  for (const table of ['experiment_holdouts', 'experiment_saved_metrics']) {
    await db.schema
      .createTable(table)
      .addColumn('id', sql.raw(t.serial), (c) =>
        t.serial === 'serial' ? c.primaryKey() : c.primaryKey().autoIncrement(),
      )
      .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('created_at', ts, (c) => c.notNull())
      .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('updated_at', ts, (c) => c.notNull())
      .execute();
    await db.schema.createIndex(`${table}_team`).on(table).columns(['team_id']).execute();
  }
}
