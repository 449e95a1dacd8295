import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * `modifiers`: the project's default HogQL modifiers (PostHog's `team.modifiers`), such as
 * `personsOnEventsMode`; a query's own modifiers override them key by key. NULL: none set.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema.alterTable('teams').addColumn('modifiers', sql.raw(t.json)).execute();
}
