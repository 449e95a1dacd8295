import { bool, iso } from './codec.js';
import type { MetaDb } from './db.js';
import { prepared } from './prepared.js';

export interface OrganizationRecord {
  id: string;
  name: string;
  slug: string;
  createdAt: string;
  updatedAt: string;
  membersCanUsePersonalApiKeys: boolean;
  isMemberJoinEmailEnabled: boolean;
}

export interface OrganizationWithLevel extends OrganizationRecord {
  membershipLevel: number;
}

type Row = {
  id: string;
  name: string;
  slug: string;
  created_at: Date | string;
  updated_at: Date | string;
  members_can_use_personal_api_keys: boolean | number;
  is_member_join_email_enabled: boolean | number;
};

function toRecord(row: Row): OrganizationRecord {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    membersCanUsePersonalApiKeys: bool(row.members_can_use_personal_api_keys),
    isMemberJoinEmailEnabled: bool(row.is_member_join_email_enabled),
  };
}

const COLUMNS = [
  'organizations.id',
  'organizations.name',
  'organizations.slug',
  'organizations.created_at',
  'organizations.updated_at',
  'organizations.members_can_use_personal_api_keys',
  'organizations.is_member_join_email_enabled',
] as const;

const byId = prepared(
  (db: MetaDb, id: string) => db.selectFrom('organizations').select(COLUMNS).where('id', '=', id),
  1,
);

export async function findOrganization(db: MetaDb, id: string): Promise<OrganizationRecord | undefined> {
  const [row] = await byId(db, id);
  return row && toRecord(row);
}

export async function slugExists(db: MetaDb, slug: string): Promise<boolean> {
  const row = await db.selectFrom('organizations').select('id').where('slug', '=', slug).executeTakeFirst();
  return row !== undefined;
}

export async function insertOrganization(db: MetaDb, org: OrganizationRecord): Promise<void> {
  await db
    .insertInto('organizations')
    .values({
      id: org.id,
      name: org.name,
      slug: org.slug,
      created_at: org.createdAt,
      updated_at: org.updatedAt,
      members_can_use_personal_api_keys: org.membersCanUsePersonalApiKeys,
      is_member_join_email_enabled: org.isMemberJoinEmailEnabled,
    })
    .execute();
}

export interface OrganizationPatch {
  name?: string;
  membersCanUsePersonalApiKeys?: boolean;
  isMemberJoinEmailEnabled?: boolean;
  updatedAt: string;
}

export async function updateOrganization(db: MetaDb, id: string, patch: OrganizationPatch): Promise<void> {
  await db
    .updateTable('organizations')
    .set({
      name: patch.name,
      members_can_use_personal_api_keys: patch.membersCanUsePersonalApiKeys,
      is_member_join_email_enabled: patch.isMemberJoinEmailEnabled,
      updated_at: patch.updatedAt,
    })
    .where('id', '=', id)
    .execute();
}

export async function countOrganizations(db: MetaDb): Promise<number> {
  const row = await db
    .selectFrom('organizations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Organizations the user belongs to (of `onlyIds` if given), oldest membership first, one page at a time. */
export async function listUserOrganizations(
  db: MetaDb,
  userId: number,
  page: { limit: number; offset: number },
  onlyIds?: string[],
): Promise<{ count: number; results: OrganizationWithLevel[] }> {
  let base = db
    .selectFrom('organizations')
    .innerJoin('organization_memberships as m', 'm.organization_id', 'organizations.id')
    .where('m.user_id', '=', userId);
  // A key scoped to some organizations lists only those.
  if (onlyIds?.length) base = base.where('organizations.id', 'in', onlyIds);
  const [countRow, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    base
      .select([...COLUMNS, 'm.level'])
      .orderBy('m.joined_at')
      .orderBy('organizations.id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);
  return {
    count: Number(countRow.n),
    results: rows.map((row) => ({ ...toRecord(row), membershipLevel: row.level })),
  };
}

const allOfUser = prepared(
  (db: MetaDb, userId: number) =>
    db
      .selectFrom('organizations')
      .innerJoin('organization_memberships as m', 'm.organization_id', 'organizations.id')
      .where('m.user_id', '=', userId)
      .select([...COLUMNS, 'm.level'])
      .orderBy('m.joined_at')
      .orderBy('organizations.id'),
  1,
);

/** Every organization the user belongs to, with their level, oldest membership first. */
export async function allUserOrganizations(db: MetaDb, userId: number): Promise<OrganizationWithLevel[]> {
  return (await allOfUser(db, userId)).map((row) => ({ ...toRecord(row), membershipLevel: row.level }));
}
