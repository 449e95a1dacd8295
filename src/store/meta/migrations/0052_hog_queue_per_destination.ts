import { type Kysely, sql } from 'kysely';

/**
 * Delivery workers take jobs per destination (docs/destinations.md, "Delivery"): an index on
 * `(function_id, next_at, id)` finds a destination's due jobs without reading past other
 * destinations' backlog, and lets the workers list the destinations with jobs by a skip scan.
 * A taken job's `next_at` is now its lease's end; jobs leased when this runs are moved so (only
 * queue timing changes, nothing a copy of the database would be needed to restore: no
 * `rewritesData`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('hog_queue_function_due')
    .on('hog_queue')
    .columns(['function_id', 'next_at', 'id'])
    .execute();
  // Jobs were taken oldest first across destinations by this one; nothing reads it now, and each
  // claim moves `next_at`, which every index on it has to follow.
  await db.schema.dropIndex('hog_queue_due').execute();
  await sql`update hog_queue set next_at = lease_expires_at
    where lease_owner is not null and lease_expires_at is not null`.execute(db);
}
