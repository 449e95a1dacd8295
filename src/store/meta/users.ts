import { bool, iso, isoOrNull } from './codec.js';
import type { MetaDb } from './db.js';
import { prepared } from './prepared.js';

export interface UserRecord {
  id: number;
  uuid: string;
  distinctId: string;
  email: string;
  firstName: string;
  lastName: string;
  passwordHash: string | null;
  isActive: boolean;
  isEmailVerified: boolean;
  currentOrganizationId: string | null;
  currentTeamId: number | null;
  createdAt: string;
  lastLogin: string | null;
}

export type NewUser = Omit<UserRecord, 'id'>;

export type UserRow = {
  id: number;
  uuid: string;
  distinct_id: string;
  email: string;
  first_name: string;
  last_name: string;
  password_hash: string | null;
  is_active: boolean | number;
  is_email_verified: boolean | number;
  current_organization_id: string | null;
  current_team_id: number | null;
  created_at: Date | string;
  last_login: Date | string | null;
};

export function toRecord(row: UserRow): UserRecord {
  return {
    id: row.id,
    uuid: row.uuid,
    distinctId: row.distinct_id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    passwordHash: row.password_hash,
    isActive: bool(row.is_active),
    isEmailVerified: bool(row.is_email_verified),
    currentOrganizationId: row.current_organization_id,
    currentTeamId: row.current_team_id,
    createdAt: iso(row.created_at),
    lastLogin: isoOrNull(row.last_login),
  };
}

const byId = prepared((db: MetaDb, id: number) => db.selectFrom('users').selectAll().where('id', '=', id), 1);

export async function findUser(db: MetaDb, id: number): Promise<UserRecord | undefined> {
  const [row] = await byId(db, id);
  return row && toRecord(row);
}

export async function findUserByEmail(db: MetaDb, email: string): Promise<UserRecord | undefined> {
  const row = await db
    .selectFrom('users')
    .selectAll()
    .where('email', '=', email.toLowerCase())
    .executeTakeFirst();
  return row && toRecord(row);
}

export async function insertUser(db: MetaDb, user: NewUser): Promise<UserRecord> {
  const row = await db
    .insertInto('users')
    .values({
      uuid: user.uuid,
      distinct_id: user.distinctId,
      email: user.email.toLowerCase(),
      first_name: user.firstName,
      last_name: user.lastName,
      password_hash: user.passwordHash,
      is_active: user.isActive,
      is_email_verified: user.isEmailVerified,
      current_organization_id: user.currentOrganizationId,
      current_team_id: user.currentTeamId,
      created_at: user.createdAt,
      last_login: user.lastLogin,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toRecord(row);
}

export async function setUserCurrent(
  db: MetaDb,
  userId: number,
  current: { organizationId: string | null; teamId: number | null },
): Promise<void> {
  await db
    .updateTable('users')
    .set({ current_organization_id: current.organizationId, current_team_id: current.teamId })
    .where('id', '=', userId)
    .execute();
}

export async function setUserPassword(db: MetaDb, userId: number, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
}

export async function setUserNames(
  db: MetaDb,
  userId: number,
  names: { firstName?: string; lastName?: string },
): Promise<void> {
  const set = {
    ...(names.firstName !== undefined ? { first_name: names.firstName } : {}),
    ...(names.lastName !== undefined ? { last_name: names.lastName } : {}),
  };
  if (Object.keys(set).length > 0) await db.updateTable('users').set(set).where('id', '=', userId).execute();
}
