import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * Realtime destinations (docs/destinations.md): PostHog's hog functions. The searchable and
 * state-bearing fields are columns; inputs_schema, inputs (secret values included: never answered
 * back), filters and masking are JSON text. Ids are UUIDs, as PostHog's.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const ts = sql.raw(t.timestamp);
  const bool = sql.raw(t.bool);
  const no = sql.raw(t.boolLiteral(false));
  await db.schema
    .createTable('hog_functions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('enabled', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('deleted', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('template_id', 'text')
    .addColumn('hog', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('icon_url', 'text')
    .addColumn('inputs_schema', 'text', (c) => c.notNull())
    .addColumn('inputs', 'text', (c) => c.notNull())
    .addColumn('filters', 'text', (c) => c.notNull())
    .addColumn('masking', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('hog_functions_team')
    .on('hog_functions')
    .columns(['team_id', 'deleted'])
    .execute();
}
