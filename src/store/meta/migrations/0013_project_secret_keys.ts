import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * A project's secret API key (`phs_…`), which server SDKs use for local evaluation instead of a
 * personal key. One per project; only its SHA-256 is kept, as for personal keys.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('project_secret_api_keys')
    .addColumn('team_id', 'integer', (c) => c.primaryKey().references('teams.id').onDelete('cascade'))
    .addColumn('secure_value', 'text', (c) => c.notNull().unique())
    .addColumn('mask_value', 'text', (c) => c.notNull())
    .addColumn('created_at', sql.raw(t.timestamp), (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .execute();
}
