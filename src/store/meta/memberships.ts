import { iso } from './codec.js';
import type { MetaDb } from './db.js';
import { prepared } from './prepared.js';

export interface MembershipRecord {
  id: string;
  organizationId: string;
  userId: number;
  level: number;
  joinedAt: string;
  updatedAt: string;
}

const byOrganizationAndUser = prepared(
  (db: MetaDb, organizationId: string, userId: number) =>
    db
      .selectFrom('organization_memberships')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('user_id', '=', userId),
  2,
);

export async function findMembership(
  db: MetaDb,
  organizationId: string,
  userId: number,
): Promise<MembershipRecord | undefined> {
  const [row] = await byOrganizationAndUser(db, organizationId, userId);
  return (
    row && {
      id: row.id,
      organizationId: row.organization_id,
      userId: row.user_id,
      level: row.level,
      joinedAt: iso(row.joined_at),
      updatedAt: iso(row.updated_at),
    }
  );
}

export async function insertMembership(db: MetaDb, m: MembershipRecord): Promise<void> {
  await db
    .insertInto('organization_memberships')
    .values({
      id: m.id,
      organization_id: m.organizationId,
      user_id: m.userId,
      level: m.level,
      joined_at: m.joinedAt,
      updated_at: m.updatedAt,
    })
    .execute();
}

/** Ids of every organization the user belongs to. */
export async function userOrganizationIds(db: MetaDb, userId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('organization_memberships')
    .select('organization_id')
    .where('user_id', '=', userId)
    .orderBy('joined_at')
    .execute();
  return rows.map((r) => r.organization_id);
}
