import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * LLM prompts (docs/llm-analytics.md): one row per version, never changed once written but for
 * `deleted`; a name's latest version is its highest. Ids are UUIDs, as PostHog's.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const bool = sql.raw(t.bool);
  const no = sql.raw(t.boolLiteral(false));
  const ts = sql.raw(t.timestamp);
  await db.schema
    .createTable('llm_prompts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    // JSON as text: a prompt may be a bare JSON string, which PostgreSQL's json columns hand back
    // parsed and indistinguishable from JSON text.
    .addColumn('prompt', 'text', (c) => c.notNull())
    .addColumn('deleted', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .execute();
  await db.schema
    .createIndex('llm_prompts_name_version')
    .on('llm_prompts')
    .columns(['team_id', 'name', 'version'])
    .unique()
    .execute();
}
