import type { Kysely } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * `interval_offset`: seconds from the start of a day (or a Sunday-started week) to where a day
 * or week export's windows begin, PostHog's `offset_day * 86400 + offset_hour * 3600`.
 */
export async function up(db: Kysely<unknown>, _t: ColumnTypes): Promise<void> {
  await db.schema.alterTable('batch_exports').addColumn('interval_offset', 'integer').execute();
}
