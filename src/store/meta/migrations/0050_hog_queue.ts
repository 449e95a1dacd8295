import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * Delivery of realtime destinations (docs/destinations.md):
 * - `hog_queue`: one row per (destination, event) to send, written before the capture journal's
 *   checkpoint moves past the event (at least once across kill -9), taken by workers under a lease
 *   so two nodes never send one job at once, kept until it is sent or has failed for good.
 * - `hog_masks`: masking keys (a hash of the rendered template) with the time they expire.
 * - `hog_function_logs` and `hog_function_metrics`: what `logs/` and `metrics/` answer, bounded per
 *   destination.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const ts = sql.raw(t.timestamp);
  await db.schema
    .createTable('hog_queue')
    .addColumn('id', sql.raw(t.serial), (c) =>
      t.serial === 'serial' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('function_id', 'text', (c) => c.notNull().references('hog_functions.id').onDelete('cascade'))
    .addColumn('event_uuid', 'text', (c) => c.notNull())
    .addColumn('globals', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_at', ts, (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  // An event replayed from the journal is queued once per destination.
  await db.schema
    .createIndex('hog_queue_event')
    .on('hog_queue')
    .columns(['function_id', 'event_uuid'])
    .unique()
    .execute();
  await db.schema.createIndex('hog_queue_due').on('hog_queue').columns(['next_at', 'id']).execute();
  await db.schema
    .createTable('hog_masks')
    .addColumn('function_id', 'text', (c) => c.notNull().references('hog_functions.id').onDelete('cascade'))
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('expires_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('hog_masks_pk', ['function_id', 'hash'])
    .execute();
  await db.schema
    .createTable('hog_function_logs')
    .addColumn('id', sql.raw(t.serial), (c) =>
      t.serial === 'serial' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('function_id', 'text', (c) => c.notNull().references('hog_functions.id').onDelete('cascade'))
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('timestamp', ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('hog_function_logs_function')
    .on('hog_function_logs')
    .columns(['function_id', 'id'])
    .execute();
  await db.schema
    .createTable('hog_function_metrics')
    .addColumn('function_id', 'text', (c) => c.notNull().references('hog_functions.id').onDelete('cascade'))
    .addColumn('hour', ts, (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('hog_function_metrics_pk', ['function_id', 'hour', 'kind', 'name'])
    .execute();
}
