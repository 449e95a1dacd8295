import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * Actions: named unions of event "steps" (event name, URL, element and property matches) that
 * insights can use in place of an event. Steps are stored as one JSON list, as PostHog does, since
 * they are only ever read and written whole. Deleting marks `deleted`; insights that name a
 * deleted action keep working.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const ts = sql.raw(t.timestamp);
  const bool = sql.raw(t.bool);
  const no = sql.raw(t.boolLiteral(false));
  await db.schema
    .createTable('actions')
    .addColumn('id', sql.raw(t.serial), (c) =>
      t.serial === 'serial' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', 'text')
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('tags', sql.raw(t.json), (c) => c.notNull())
    .addColumn('post_to_slack', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('slack_message_format', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('steps', sql.raw(t.json), (c) => c.notNull())
    .addColumn('deleted', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addColumn('last_calculated_at', ts, (c) => c.notNull())
    .addColumn('pinned_at', ts)
    .execute();
  await db.schema.createIndex('actions_team').on('actions').columns(['team_id', 'deleted']).execute();
}
