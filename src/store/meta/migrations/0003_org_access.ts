import { type Kysely, sql } from 'kysely';
import type { ColumnTypes } from '../codec.js';

/**
 * Organization domains, invites, login sessions and the project access an invite grants.
 * A domain is unique across all organizations (a domain can only prove one owner).
 */
export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const ts = sql.raw(t.timestamp);
  const no = sql.raw(t.boolLiteral(false));

  await db.schema
    .createTable('organization_domains')
    .addColumn('id', sql.raw(t.uuid), (c) => c.primaryKey())
    .addColumn('organization_id', sql.raw(t.uuid), (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('domain', 'text', (c) => c.notNull().unique())
    .addColumn('verification_challenge', 'text', (c) => c.notNull())
    .addColumn('verified_at', ts)
    .addColumn('last_verification_retry', ts)
    .addColumn('jit_provisioning_enabled', sql.raw(t.bool), (c) => c.notNull().defaultTo(no))
    .addColumn('sso_enforcement', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('saml_entity_id', 'text')
    .addColumn('saml_acs_url', 'text')
    .addColumn('saml_x509_cert', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('organization_domains_org_domain')
    .on('organization_domains')
    .columns(['organization_id', 'domain'])
    .execute();

  await db.schema
    .createTable('organization_invites')
    .addColumn('id', sql.raw(t.uuid), (c) => c.primaryKey())
    .addColumn('organization_id', sql.raw(t.uuid), (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('target_email', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_by_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('emailing_attempt_made', sql.raw(t.bool), (c) => c.notNull().defaultTo(no))
    .addColumn('level', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('message', 'text')
    .addColumn('private_project_access', sql.raw(t.json), (c) => c.notNull())
    .addColumn('accepted_at', ts)
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('organization_invites_org_created')
    .on('organization_invites')
    .columns(['organization_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('organization_invites_org_email')
    .on('organization_invites')
    .columns(['organization_id', 'target_email'])
    .execute();

  // The id is the SHA-256 of the cookie value: a leaked table does not hand out sessions.
  await db.schema
    .createTable('login_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('expires_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('login_sessions_user').on('login_sessions').column('user_id').execute();
  await db.schema.createIndex('login_sessions_expires').on('login_sessions').column('expires_at').execute();

  await db.schema
    .createTable('member_project_access')
    .addColumn('membership_id', sql.raw(t.uuid), (c) =>
      c.notNull().references('organization_memberships.id').onDelete('cascade'),
    )
    .addColumn('team_id', 'integer', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('level', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('member_project_access_pk', ['membership_id', 'team_id'])
    .execute();
}
