import { sql } from 'kysely';
import { bool, iso, isoOrNull, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';

/** One project an invite grants: PostHog accepts `member`/`admin` (or legacy 1/8) as the level. */
export interface ProjectGrant {
  id: number;
  level: string | number;
}

export interface InviteRecord {
  id: string;
  organizationId: string;
  targetEmail: string;
  firstName: string;
  createdById: number | null;
  emailingAttemptMade: boolean;
  level: number;
  message: string | null;
  privateProjectAccess: ProjectGrant[];
  acceptedAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** SHA-256 (hex) of the invite's secret: never listed, never sent anywhere but compared. */
  tokenHash: string | null;
}

type Row = {
  id: string;
  organization_id: string;
  target_email: string;
  first_name: string;
  created_by_id: number | null;
  emailing_attempt_made: boolean | number;
  level: number;
  message: string | null;
  private_project_access: unknown;
  accepted_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  token_hash: string | null;
};

function toRecord(row: Row): InviteRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    targetEmail: row.target_email,
    firstName: row.first_name,
    createdById: row.created_by_id,
    emailingAttemptMade: bool(row.emailing_attempt_made),
    level: row.level,
    message: row.message,
    privateProjectAccess: json<ProjectGrant[] | null>(row.private_project_access) ?? [],
    acceptedAt: isoOrNull(row.accepted_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    tokenHash: row.token_hash,
  };
}

/** Pending (not yet accepted) invites, newest first, so unexpired ones come before expired ones. */
export async function listInvites(
  db: MetaDb,
  organizationId: string,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: InviteRecord[] }> {
  const base = db
    .selectFrom('organization_invites')
    .where('organization_id', '=', organizationId)
    .where('accepted_at', 'is', null);
  const [countRow, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    base
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);
  return { count: Number(countRow.n), results: rows.map(toRecord) };
}

export async function findInvite(db: MetaDb, id: string): Promise<InviteRecord | undefined> {
  const row = await db.selectFrom('organization_invites').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toRecord(row);
}

// Accounts are matched without regard to case, so invites are too.
const sameAddress = (email: string) => sql<boolean>`lower(target_email) = ${email.toLowerCase()}`;

/** Pending invites of one address in an organization (expired ones included). */
export async function invitesForEmail(
  db: MetaDb,
  organizationId: string,
  email: string,
): Promise<InviteRecord[]> {
  const rows = await db
    .selectFrom('organization_invites')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where(sameAddress(email))
    .where('accepted_at', 'is', null)
    .execute();
  return rows.map(toRecord);
}

/** Removes every invite of that address in the organization, used ones included. */
export async function deleteInvitesForEmail(db: MetaDb, organizationId: string, email: string) {
  await db
    .deleteFrom('organization_invites')
    .where('organization_id', '=', organizationId)
    .where(sameAddress(email))
    .execute();
}

export async function insertInvite(db: MetaDb, i: InviteRecord): Promise<void> {
  await db
    .insertInto('organization_invites')
    .values({
      id: i.id,
      organization_id: i.organizationId,
      target_email: i.targetEmail,
      first_name: i.firstName,
      created_by_id: i.createdById,
      emailing_attempt_made: i.emailingAttemptMade,
      level: i.level,
      message: i.message,
      private_project_access: toJson(i.privateProjectAccess),
      accepted_at: i.acceptedAt,
      created_at: i.createdAt,
      updated_at: i.updatedAt,
      token_hash: i.tokenHash,
    })
    .execute();
}

/** Replaces an invite's secret (the operator's `invites link`); false when it is gone or used. */
export async function setInviteTokenHash(db: MetaDb, id: string, tokenHash: string): Promise<boolean> {
  const result = await db
    .updateTable('organization_invites')
    .set({ token_hash: tokenHash })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Marks an invite used; false when another request used it first. */
export async function markInviteAccepted(db: MetaDb, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('organization_invites')
    .set({ accepted_at: at, updated_at: at })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteInvite(db: MetaDb, id: string): Promise<void> {
  await db.deleteFrom('organization_invites').where('id', '=', id).execute();
}
