import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * `settings`: PostHog project settings Burrow stores and returns under PostHog's names (SDK
 * switches, recording triggers, onboarding state; domain/organizations/team-settings.ts). NULL:
 * all at PostHog's defaults.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema.alterTable('teams').addColumn('settings', sql.raw(t.json)).execute();
}
