import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * Destination state every node shares (docs/destinations.md):
 * - `hog_functions.failing_since`: when the destination's current run of failed deliveries began
 *   (NULL: its last delivery went through). Kept here rather than in a node's memory, so the
 *   self-disabling clock holds across nodes and restarts.
 * - `hog_masks.count`: invocations seen for a masking key in its TTL, for PostHog's `threshold`
 *   (the first goes, then every threshold-th after it).
 * - `hog_queue.function_id` loses its reference to `hog_functions`: actions' Slack messages
 *   (`post_to_slack`) ride the same queue under `action:<id>`. Jobs of a deleted destination are
 *   finished unsent by the worker, which reads the destination before each send.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const ts = sql.raw(t.timestamp);
  await db.schema.alterTable('hog_functions').addColumn('failing_since', ts).execute();
  await db.schema
    .alterTable('hog_masks')
    .addColumn('count', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  if (t.serial === 'serial') {
    await sql`ALTER TABLE hog_queue DROP CONSTRAINT IF EXISTS hog_queue_function_id_fkey`.execute(db);
    return;
  }
  // SQLite cannot drop a constraint: the table is rebuilt without it (it references, nothing
  // references it, so foreign keys stay on).
  await db.schema
    .createTable('hog_queue_next')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('function_id', 'text', (c) => c.notNull())
    .addColumn('event_uuid', 'text', (c) => c.notNull())
    .addColumn('globals', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_at', ts, (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await sql`INSERT INTO hog_queue_next SELECT id, team_id, function_id, event_uuid, globals, attempts,
    next_at, lease_owner, lease_expires_at, created_at FROM hog_queue`.execute(db);
  await db.schema.dropTable('hog_queue').execute();
  await sql`ALTER TABLE hog_queue_next RENAME TO hog_queue`.execute(db);
  await db.schema
    .createIndex('hog_queue_event')
    .on('hog_queue')
    .columns(['function_id', 'event_uuid'])
    .unique()
    .execute();
  await db.schema.createIndex('hog_queue_due').on('hog_queue').columns(['next_at', 'id']).execute();
}

export const rewritesData = true;
