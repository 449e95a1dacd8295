import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * Ids of teams and users are never reused once deleted (keys, links and events name them): SQLite needs
 * AUTOINCREMENT for that, PostgreSQL's serial already behaves so.
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const ts = sql.raw(t.timestamp);
  await db.schema
    .createTable('organizations')
    .addColumn('id', sql.raw(t.uuid), (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addColumn('members_can_use_personal_api_keys', sql.raw(t.bool), (c) =>
      c.notNull().defaultTo(sql.raw(t.boolLiteral(true))),
    )
    .addColumn('is_member_join_email_enabled', sql.raw(t.bool), (c) =>
      c.notNull().defaultTo(sql.raw(t.boolLiteral(true))),
    )
    .execute();

  await db.schema
    .createTable('teams')
    .addColumn('id', sql.raw(t.serial), (c) =>
      t.serial === 'serial' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('uuid', sql.raw(t.uuid), (c) => c.notNull().unique())
    .addColumn('organization_id', sql.raw(t.uuid), (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('api_token', 'text', (c) => c.notNull().unique())
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .addColumn('week_start_day', 'integer')
    .addColumn('session_recording_opt_in', sql.raw(t.bool), (c) =>
      c.notNull().defaultTo(sql.raw(t.boolLiteral(false))),
    )
    .addColumn('anonymize_ips', sql.raw(t.bool), (c) => c.notNull().defaultTo(sql.raw(t.boolLiteral(false))))
    .addColumn('is_demo', sql.raw(t.bool), (c) => c.notNull().defaultTo(sql.raw(t.boolLiteral(false))))
    .addColumn('test_account_filters', sql.raw(t.json), (c) => c.notNull())
    .addColumn('test_account_filters_default_checked', sql.raw(t.bool), (c) =>
      c.notNull().defaultTo(sql.raw(t.boolLiteral(false))),
    )
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('teams_organization_id').on('teams').column('organization_id').execute();

  await db.schema
    .createTable('users')
    .addColumn('id', sql.raw(t.serial), (c) =>
      t.serial === 'serial' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('uuid', sql.raw(t.uuid), (c) => c.notNull().unique())
    .addColumn('distinct_id', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('first_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('last_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('password_hash', 'text')
    .addColumn('is_active', sql.raw(t.bool), (c) => c.notNull().defaultTo(sql.raw(t.boolLiteral(true))))
    .addColumn('is_email_verified', sql.raw(t.bool), (c) =>
      c.notNull().defaultTo(sql.raw(t.boolLiteral(false))),
    )
    .addColumn('current_organization_id', sql.raw(t.uuid), (c) =>
      c.references('organizations.id').onDelete('set null'),
    )
    .addColumn('current_team_id', 'integer', (c) => c.references('teams.id').onDelete('set null'))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('last_login', ts)
    .execute();

  await db.schema
    .createTable('organization_memberships')
    .addColumn('id', sql.raw(t.uuid), (c) => c.primaryKey())
    .addColumn('organization_id', sql.raw(t.uuid), (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('level', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('joined_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addUniqueConstraint('organization_memberships_org_user', ['organization_id', 'user_id'])
    .execute();
  await db.schema
    .createIndex('organization_memberships_user_id')
    .on('organization_memberships')
    .column('user_id')
    .execute();

  await db.schema
    .createTable('personal_api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('mask_value', 'text', (c) => c.notNull())
    .addColumn('secure_value', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('last_used_at', ts)
    .addColumn('last_rolled_at', ts)
    .addColumn('scopes', sql.raw(t.json), (c) => c.notNull())
    .addColumn('scoped_teams', sql.raw(t.json))
    .addColumn('scoped_organizations', sql.raw(t.json))
    .execute();
  await db.schema
    .createIndex('personal_api_keys_user_created')
    .on('personal_api_keys')
    .columns(['user_id', 'created_at', 'id'])
    .execute();
}
