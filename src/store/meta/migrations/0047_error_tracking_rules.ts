import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * Error tracking rules (docs/error-tracking.md), as PostHog keeps them: grouping rules (exceptions
 * matching `filters` form one issue, optionally assigned) and suppression rules (matching exceptions
 * are dropped at capture; `matched_count` counts them). `filters` is PostHog's property group as
 * JSON text; rules apply in `order_key` order.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const ts = sql.raw(t.timestamp);
  for (const table of ['error_tracking_grouping_rules', 'error_tracking_suppression_rules'] as const) {
    let create = db.schema
      .createTable(table)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
      .addColumn('filters', 'text', (c) => c.notNull())
      .addColumn('order_key', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('disabled_data', 'text');
    if (table === 'error_tracking_grouping_rules') {
      create = create.addColumn('description', 'text').addColumn('assignee', 'text');
    } else {
      create = create.addColumn('matched_count', 'bigint', (c) => c.notNull().defaultTo(0));
    }
    await create
      .addColumn('created_at', ts, (c) => c.notNull())
      .addColumn('updated_at', ts, (c) => c.notNull())
      .execute();
    await db.schema.createIndex(`${table}_team`).on(table).columns(['team_id', 'order_key']).execute();
  }
}
