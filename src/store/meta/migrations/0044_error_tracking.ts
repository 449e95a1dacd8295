import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * Error tracking (docs/error-tracking.md), as PostHog keeps it: issues (a status, a name and
 * description, an assignee), the fingerprints that map to an issue (several after a merge), and the
 * symbol sets and releases `posthog-cli sourcemap upload` registers. Ids are UUID text, as the
 * prompts', so both engines hand back the same thing.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const ts = sql.raw(t.timestamp);
  await db.schema
    .createTable('error_tracking_issues')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('description', 'text')
    // `{type: 'user' | 'role', id}` as JSON text, or null.
    .addColumn('assignee', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('error_tracking_issues_team')
    .on('error_tracking_issues')
    .columns(['team_id', 'status', 'created_at'])
    .execute();
  await db.schema
    .createTable('error_tracking_fingerprints')
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('issue_id', 'text', (c) =>
      c.notNull().references('error_tracking_issues.id').onDelete('cascade'),
    )
    .addColumn('first_seen', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('error_tracking_fingerprints_pk', ['team_id', 'fingerprint'])
    .execute();
  await db.schema
    .createIndex('error_tracking_fingerprints_issue')
    .on('error_tracking_fingerprints')
    .columns(['issue_id'])
    .execute();
  await db.schema
    .createTable('error_tracking_releases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('hash_id', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('project', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('error_tracking_releases_hash')
    .on('error_tracking_releases')
    .columns(['team_id', 'hash_id'])
    .unique()
    .execute();
  await db.schema
    .createTable('error_tracking_symbol_sets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    // The chunk id the bundler plugin injected (`ref`), unique per project as PostHog's.
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('release_id', 'text', (c) => c.references('error_tracking_releases.id').onDelete('set null'))
    // Where the uploaded bytes are (a file name under the data directory), null until uploaded.
    .addColumn('storage_ptr', 'text')
    .addColumn('content_hash', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('error_tracking_symbol_sets_ref')
    .on('error_tracking_symbol_sets')
    .columns(['team_id', 'ref'])
    .unique()
    .execute();
}
