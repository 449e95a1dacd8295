import { iso } from './codec.js';
import type { MetaDb } from './db.js';
import type { ProjectGrant } from './invites.js';
import type { MembershipRecord } from './memberships.js';
import { toRecord as toUser, type UserRecord, type UserRow } from './users.js';

export interface MemberRecord extends MembershipRecord {
  user: UserRecord;
}

export const MEMBER_ORDERS = ['joined_at', 'updated_at', 'level'] as const;
export type MemberOrder = (typeof MEMBER_ORDERS)[number] | `-${(typeof MEMBER_ORDERS)[number]}`;

export interface MemberFilter {
  email?: string;
  updatedAfter?: string;
  userUuid?: string;
  userId?: number;
  order?: MemberOrder;
}

function base(db: MetaDb, organizationId: string, filter: MemberFilter) {
  let q = db
    .selectFrom('organization_memberships as m')
    .innerJoin('users', 'users.id', 'm.user_id')
    .where('m.organization_id', '=', organizationId)
    .where('users.is_active', '=', true);
  if (filter.email !== undefined) q = q.where('users.email', '=', filter.email.toLowerCase());
  if (filter.updatedAfter !== undefined) q = q.where('m.updated_at', '>', filter.updatedAfter);
  if (filter.userUuid !== undefined) q = q.where('users.uuid', '=', filter.userUuid);
  if (filter.userId !== undefined) q = q.where('m.user_id', '=', filter.userId);
  return q;
}

type JoinedRow = UserRow & {
  membership_id: string;
  organization_id: string;
  level: number;
  joined_at: Date | string;
  m_updated_at: Date | string;
};

function toMember(row: JoinedRow): MemberRecord {
  return {
    id: row.membership_id,
    organizationId: row.organization_id,
    userId: row.id,
    level: row.level,
    joinedAt: iso(row.joined_at),
    updatedAt: iso(row.m_updated_at),
    user: toUser(row),
  };
}

/** Active members of an organization; newest first unless `order` says otherwise. */
export async function listMembers(
  db: MetaDb,
  organizationId: string,
  filter: MemberFilter,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: MemberRecord[] }> {
  const order = filter.order ?? '-joined_at';
  const column = order.replace(/^-/, '') as (typeof MEMBER_ORDERS)[number];
  const direction = order.startsWith('-') ? 'desc' : 'asc';
  const [countRow, rows] = await Promise.all([
    base(db, organizationId, filter)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
    base(db, organizationId, filter)
      .selectAll('users')
      .select([
        'm.id as membership_id',
        'm.organization_id',
        'm.level',
        'm.joined_at',
        'm.updated_at as m_updated_at',
      ])
      .orderBy(`m.${column}`, direction)
      // Joins in the same millisecond keep their order: user ids only grow (membership ids are random).
      .orderBy('m.user_id', direction)
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);
  return { count: Number(countRow.n), results: rows.map((r) => toMember(r as JoinedRow)) };
}

export async function findMember(
  db: MetaDb,
  organizationId: string,
  who: { userUuid: string } | { userId: number },
): Promise<MemberRecord | undefined> {
  const { results } = await listMembers(db, organizationId, who, { limit: 1, offset: 0 });
  return results[0];
}

export async function setMembershipLevel(db: MetaDb, id: string, level: number, at: string): Promise<void> {
  await db
    .updateTable('organization_memberships')
    .set({ level, updated_at: at })
    .where('id', '=', id)
    .execute();
}

export async function deleteMembership(db: MetaDb, id: string): Promise<void> {
  await db.deleteFrom('organization_memberships').where('id', '=', id).execute();
}

export async function insertProjectAccess(db: MetaDb, membershipId: string, grants: ProjectGrant[]) {
  if (grants.length === 0) return;
  await db
    .insertInto('member_project_access')
    .values(grants.map((g) => ({ membership_id: membershipId, team_id: g.id, level: String(g.level) })))
    .execute();
}

export async function projectAccessOf(db: MetaDb, membershipId: string): Promise<ProjectGrant[]> {
  const rows = await db
    .selectFrom('member_project_access')
    .select(['team_id', 'level'])
    .where('membership_id', '=', membershipId)
    .orderBy('team_id')
    .execute();
  return rows.map((r) => ({ id: r.team_id, level: r.level }));
}

export async function usersByIds(db: MetaDb, ids: number[]): Promise<UserRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('users').selectAll().where('id', 'in', ids).execute();
  return rows.map(toUser);
}
