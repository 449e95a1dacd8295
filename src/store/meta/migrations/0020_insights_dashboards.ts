import { type ColumnDefinitionBuilder, type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * Saved insights, dashboards and their tiles, annotations, and sharing links (PostHog's Insight,
 * Dashboard, DashboardTile + Text, Annotation and SharingConfiguration). Deletion is a flag
 * everywhere, as in PostHog, so a PATCH `deleted: false` restores. A text tile keeps its text in
 * the tile row: a Text is never shared between tiles. Results are not stored here; they live in the
 * query cache under the insight's cache key.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const ts = sql.raw(t.timestamp);
  const bool = sql.raw(t.bool);
  const json = sql.raw(t.json);
  const no = sql.raw(t.boolLiteral(false));
  const id = (c: ColumnDefinitionBuilder) =>
    t.serial === 'serial' ? c.primaryKey() : c.primaryKey().autoIncrement();

  await db.schema
    .createTable('insights')
    .addColumn('id', sql.raw(t.serial), id)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('short_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('derived_name', 'text')
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('query', json)
    .addColumn('tags', json, (c) => c.notNull())
    .addColumn('favorited', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('saved', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('deleted', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addColumn('last_modified_at', ts, (c) => c.notNull())
    .addColumn('last_modified_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addUniqueConstraint('insights_short_id', ['team_id', 'short_id'])
    .execute();
  await db.schema
    .createIndex('insights_team_modified')
    .on('insights')
    .columns(['team_id', 'deleted', 'last_modified_at'])
    .execute();

  await db.schema
    .createTable('dashboards')
    .addColumn('id', sql.raw(t.serial), id)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', 'text')
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('pinned', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('tags', json, (c) => c.notNull())
    .addColumn('filters', json, (c) => c.notNull())
    .addColumn('variables', json)
    .addColumn('deleted', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('last_accessed_at', ts)
    .execute();
  await db.schema.createIndex('dashboards_team').on('dashboards').columns(['team_id', 'deleted']).execute();

  await db.schema
    .createTable('dashboard_tiles')
    .addColumn('id', sql.raw(t.serial), id)
    .addColumn('dashboard_id', 'integer', (c) => c.notNull().references('dashboards.id').onDelete('cascade'))
    .addColumn('insight_id', 'integer', (c) => c.references('insights.id').onDelete('cascade'))
    .addColumn('text_body', 'text')
    .addColumn('text_created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('text_last_modified_at', ts)
    .addColumn('layouts', json, (c) => c.notNull())
    .addColumn('color', 'text')
    .addColumn('deleted', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('dashboard_tiles_dashboard')
    .on('dashboard_tiles')
    .column('dashboard_id')
    .execute();
  await db.schema.createIndex('dashboard_tiles_insight').on('dashboard_tiles').column('insight_id').execute();

  await db.schema
    .createTable('annotations')
    .addColumn('id', sql.raw(t.serial), id)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('content', 'text')
    .addColumn('date_marker', ts)
    .addColumn('creation_type', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('insight_id', 'integer', (c) => c.references('insights.id').onDelete('set null'))
    .addColumn('dashboard_id', 'integer', (c) => c.references('dashboards.id').onDelete('set null'))
    .addColumn('deleted', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('annotations_org_date')
    .on('annotations')
    .columns(['organization_id', 'date_marker'])
    .execute();

  // One row per shared object; the token is looked up on every public read (unique index).
  await db.schema
    .createTable('sharing_configurations')
    .addColumn('id', sql.raw(t.serial), id)
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('insight_id', 'integer', (c) => c.references('insights.id').onDelete('cascade'))
    .addColumn('dashboard_id', 'integer', (c) => c.references('dashboards.id').onDelete('cascade'))
    .addColumn('enabled', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('access_token', 'text', (c) => c.notNull().unique())
    .addColumn('settings', json)
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sharing_configurations_target')
    .on('sharing_configurations')
    .columns(['team_id', 'insight_id', 'dashboard_id'])
    .execute();
}
