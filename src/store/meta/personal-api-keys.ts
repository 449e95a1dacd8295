import { iso, isoOrNull, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';
import { prepared } from './prepared.js';

export interface PersonalApiKeyRecord {
  id: string;
  userId: number;
  label: string;
  maskValue: string;
  secureValue: string;
  createdAt: string;
  lastUsedAt: string | null;
  lastRolledAt: string | null;
  scopes: string[];
  scopedTeams: number[] | null;
  scopedOrganizations: string[] | null;
}

type Row = {
  id: string;
  user_id: number;
  label: string;
  mask_value: string;
  secure_value: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
  last_rolled_at: Date | string | null;
  scopes: unknown;
  scoped_teams: unknown;
  scoped_organizations: unknown;
};

function toRecord(row: Row): PersonalApiKeyRecord {
  return {
    id: row.id,
    userId: row.user_id,
    label: row.label,
    maskValue: row.mask_value,
    secureValue: row.secure_value,
    createdAt: iso(row.created_at),
    lastUsedAt: isoOrNull(row.last_used_at),
    lastRolledAt: isoOrNull(row.last_rolled_at),
    scopes: json<string[]>(row.scopes) ?? [],
    scopedTeams: json<number[] | null>(row.scoped_teams) ?? null,
    scopedOrganizations: json<string[] | null>(row.scoped_organizations) ?? null,
  };
}

const bySecureValue = prepared(
  (db: MetaDb, secureValue: string) =>
    db.selectFrom('personal_api_keys').selectAll().where('secure_value', '=', secureValue),
  1,
);

export async function findKeyBySecureValue(
  db: MetaDb,
  secureValue: string,
): Promise<PersonalApiKeyRecord | undefined> {
  const [row] = await bySecureValue(db, secureValue);
  return row && toRecord(row);
}

export async function findUserKey(
  db: MetaDb,
  userId: number,
  id: string,
): Promise<PersonalApiKeyRecord | undefined> {
  const row = await db
    .selectFrom('personal_api_keys')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row && toRecord(row);
}

const byUser = prepared(
  (db: MetaDb, userId: number) =>
    db
      .selectFrom('personal_api_keys')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc'),
  1,
);

export async function listUserKeys(db: MetaDb, userId: number): Promise<PersonalApiKeyRecord[]> {
  return (await byUser(db, userId)).map(toRecord);
}

export async function countUserKeys(db: MetaDb, userId: number): Promise<number> {
  const row = await db
    .selectFrom('personal_api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertKey(db: MetaDb, key: PersonalApiKeyRecord): Promise<void> {
  await db
    .insertInto('personal_api_keys')
    .values({
      id: key.id,
      user_id: key.userId,
      label: key.label,
      mask_value: key.maskValue,
      secure_value: key.secureValue,
      created_at: key.createdAt,
      last_used_at: key.lastUsedAt,
      last_rolled_at: key.lastRolledAt,
      scopes: toJson(key.scopes),
      scoped_teams: toJson(key.scopedTeams),
      scoped_organizations: toJson(key.scopedOrganizations),
    })
    .execute();
}

export interface KeyPatch {
  label?: string;
  scopes?: string[];
  scopedTeams?: number[] | null;
  scopedOrganizations?: string[] | null;
  maskValue?: string;
  secureValue?: string;
  lastRolledAt?: string;
}

export async function updateKey(db: MetaDb, id: string, patch: KeyPatch): Promise<void> {
  await db
    .updateTable('personal_api_keys')
    .set({
      label: patch.label,
      scopes: patch.scopes === undefined ? undefined : toJson(patch.scopes),
      scoped_teams: patch.scopedTeams === undefined ? undefined : toJson(patch.scopedTeams),
      scoped_organizations:
        patch.scopedOrganizations === undefined ? undefined : toJson(patch.scopedOrganizations),
      mask_value: patch.maskValue,
      secure_value: patch.secureValue,
      last_rolled_at: patch.lastRolledAt,
    })
    .where('id', '=', id)
    .execute();
}

export async function deleteKey(db: MetaDb, id: string): Promise<void> {
  await db.deleteFrom('personal_api_keys').where('id', '=', id).execute();
}

export async function touchKey(db: MetaDb, id: string, at: string): Promise<void> {
  await db.updateTable('personal_api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}
