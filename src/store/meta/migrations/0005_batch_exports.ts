import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * Batch exports, their backfills and runs. `next_window_start` is each export's (and backfill's)
 * scheduling cursor: a run is created by moving it forward with a compare-and-set, so two nodes
 * never create the same window. A run is executed under a lease (`lease_owner`, `lease_expires_at`);
 * an expired lease is how a window left behind by a dead node gets retried.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const ts = sql.raw(t.timestamp);
  const bool = sql.raw(t.bool);
  await db.schema
    .createTable('batch_exports')
    .addColumn('id', sql.raw(t.uuid), (c) => c.primaryKey())
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('interval', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .addColumn('paused', bool, (c) => c.notNull().defaultTo(sql.raw(t.boolLiteral(false))))
    .addColumn('paused_reason', 'text')
    .addColumn('deleted', bool, (c) => c.notNull().defaultTo(sql.raw(t.boolLiteral(false))))
    .addColumn('destination_type', 'text', (c) => c.notNull())
    .addColumn('destination_config', sql.raw(t.json), (c) => c.notNull())
    .addColumn('destination_secrets', 'text')
    .addColumn('hogql_query', 'text')
    .addColumn('schema', sql.raw(t.json))
    .addColumn('filters', sql.raw(t.json))
    .addColumn('start_at', ts)
    .addColumn('end_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('last_updated_at', ts, (c) => c.notNull())
    .addColumn('last_paused_at', ts)
    .addColumn('next_window_start', ts, (c) => c.notNull())
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('batch_exports_team')
    .on('batch_exports')
    .columns(['team_id', 'deleted'])
    .execute();

  await db.schema
    .createTable('batch_export_backfills')
    .addColumn('id', sql.raw(t.uuid), (c) => c.primaryKey())
    .addColumn('team_id', 'integer', (c) => c.notNull())
    .addColumn('batch_export_id', sql.raw(t.uuid), (c) =>
      c.notNull().references('batch_exports.id').onDelete('cascade'),
    )
    .addColumn('workflow_id', 'text', (c) => c.notNull())
    .addColumn('start_at', ts)
    .addColumn('end_at', ts)
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('next_window_start', ts, (c) => c.notNull())
    .addColumn('window_end', ts, (c) => c.notNull())
    .addColumn('total_runs', 'integer', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('finished_at', ts)
    .addColumn('last_updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('batch_export_backfills_export')
    .on('batch_export_backfills')
    .columns(['batch_export_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('batch_export_runs')
    .addColumn('id', sql.raw(t.uuid), (c) => c.primaryKey())
    .addColumn('team_id', 'integer', (c) => c.notNull())
    .addColumn('batch_export_id', sql.raw(t.uuid), (c) =>
      c.notNull().references('batch_exports.id').onDelete('cascade'),
    )
    .addColumn('backfill_id', sql.raw(t.uuid), (c) =>
      c.references('batch_export_backfills.id').onDelete('cascade'),
    )
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('data_interval_start', ts)
    .addColumn('data_interval_end', ts, (c) => c.notNull())
    .addColumn('records_completed', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('records_total_count', 'bigint')
    .addColumn('bytes_exported', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('latest_error', 'text')
    .addColumn('cursor', 'text')
    .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', ts, (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('finished_at', ts)
    .addColumn('last_updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('batch_export_runs_export')
    .on('batch_export_runs')
    .columns(['batch_export_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('batch_export_runs_queue')
    .on('batch_export_runs')
    .columns(['status', 'next_attempt_at'])
    .execute();
}
