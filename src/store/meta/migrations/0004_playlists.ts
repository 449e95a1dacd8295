import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * Session recording playlists, the recordings pinned to them, and per-user/per-recording state
 * (views, deletion). Recordings themselves live in the events store; rows here only name them by
 * session id. `counts` holds the background counter's last result for a filters playlist (the
 * matched ids in `session_recording_playlist_matches`) and
 * `last_counted_at` is its lease: a node claims a playlist by moving it forward.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const ts = sql.raw(t.timestamp);
  const bool = sql.raw(t.bool);
  const no = sql.raw(t.boolLiteral(false));
  await db.schema
    .createTable('session_recording_playlists')
    .addColumn('id', sql.raw(t.serial), (c) =>
      t.serial === 'serial' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('short_id', 'text', (c) => c.notNull())
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('name', 'text')
    .addColumn('derived_name', 'text')
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('pinned', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('deleted', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('filters', sql.raw(t.json), (c) => c.notNull())
    .addColumn('type', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('last_modified_at', ts, (c) => c.notNull())
    .addColumn('last_modified_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('last_counted_at', ts)
    .addColumn('counts', sql.raw(t.json))
    .addColumn('count_errors', 'integer', (c) => c.notNull().defaultTo(0))
    .addUniqueConstraint('session_recording_playlists_short_id', ['team_id', 'short_id'])
    .execute();
  await db.schema
    .createIndex('session_recording_playlists_modified')
    .on('session_recording_playlists')
    .columns(['team_id', 'last_modified_at'])
    .execute();

  await db.schema
    .createTable('session_recording_playlist_items')
    .addColumn('playlist_id', 'integer', (c) =>
      c.notNull().references('session_recording_playlists.id').onDelete('cascade'),
    )
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('session_recording_playlist_items_pk', ['playlist_id', 'session_id'])
    .execute();
  await db.schema
    .createIndex('session_recording_playlist_items_session')
    .on('session_recording_playlist_items')
    .column('session_id')
    .execute();

  // The session ids a saved filter matched at its last count (watched counts join them to views).
  await db.schema
    .createTable('session_recording_playlist_matches')
    .addColumn('playlist_id', 'integer', (c) =>
      c.notNull().references('session_recording_playlists.id').onDelete('cascade'),
    )
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('session_recording_playlist_matches_pk', ['playlist_id', 'session_id'])
    .execute();

  await db.schema
    .createTable('session_recordings')
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('deleted', bool, (c) => c.notNull().defaultTo(no))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('session_recordings_pk', ['team_id', 'session_id'])
    .execute();

  await db.schema
    .createTable('session_recording_views')
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('session_recording_views_pk', ['team_id', 'session_id', 'user_id'])
    .execute();
}
