import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * Deletions of analytics data that run in the background (docs/persons-and-data.md): one row per
 * request, the persons it names kept here because their metadata rows are already gone, its
 * progress written step by step, and a lease so that one node at a time works on it.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const ts = sql.raw(t.timestamp);
  await db.schema
    .createTable('async_deletions')
    .addColumn('id', sql.raw(t.serial), (c) =>
      t.serial === 'serial' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('deletion_type', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('person_ids', 'text', (c) => c.notNull())
    .addColumn('distinct_ids', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('progress', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', ts)
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('started_at', ts)
    .addColumn('finished_at', ts)
    .execute();
  await db.schema
    .createIndex('async_deletions_team')
    .on('async_deletions')
    .columns(['team_id', 'id'])
    .execute();
  await db.schema
    .createIndex('async_deletions_status')
    .on('async_deletions')
    .columns(['status', 'id'])
    .execute();
}
