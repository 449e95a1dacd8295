import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * `rerun`: the backfill re-exports its windows even where the schedule already delivered them
 * (a run's retry). Plain backfills leave the schedule's windows to the schedule.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .alterTable('batch_export_backfills')
    .addColumn('rerun', sql.raw(t.bool), (c) => c.notNull().defaultTo(sql.raw(t.boolLiteral(false))))
    .execute();
}
