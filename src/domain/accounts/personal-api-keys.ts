import { notFound, permissionDenied, validationError } from '../../errors.js';
import type { MetaDb } from '../../store/meta/db.js';
import { userOrganizationIds } from '../../store/meta/memberships.js';
import {
  countUserKeys,
  deleteKey,
  findUserKey,
  insertKey,
  listUserKeys,
  type PersonalApiKeyRecord,
  updateKey,
} from '../../store/meta/personal-api-keys.js';
import { teamIdsExist } from '../../store/meta/teams.js';
import type { MetaDeps } from '../deps.js';
import { hashPersonalApiKey, isUuid, maskKeyValue, newKeyId, newPersonalApiKeyValue } from '../ids.js';
import { isRestrictedKey, type Principal } from '../principal.js';
import { isValidScope } from '../scopes.js';
import { text } from '../validate.js';

export const MAX_KEYS_PER_USER = 10;

export interface KeyInput {
  label?: string;
  scopes?: string[];
  scoped_teams?: number[] | null;
  scoped_organizations?: string[] | null;
}

/** A key record plus, right after create or roll, the only copy of its secret. */
export type KeyWithValue = PersonalApiKeyRecord & { value: string | null };

function validateScopes(scopes: string[]): string[] {
  if (scopes.length === 0) throw validationError('At least one scope is required.', 'scopes');
  for (const s of scopes) if (!isValidScope(s)) throw validationError(`Invalid scope: ${s}`, 'scopes');
  return [...new Set(scopes)];
}

async function validateScopedTeams(db: MetaDb, userId: number, ids: number[] | null | undefined) {
  if (!ids || ids.length === 0) return ids === undefined ? undefined : null;
  const teams = await teamIdsExist(db, [...new Set(ids)]);
  const orgs = new Set(await userOrganizationIds(db, userId));
  if (teams.length !== new Set(ids).size || teams.some((t) => !orgs.has(t.organizationId))) {
    throw validationError(
      'You must be a member of all teams that you are scoping the key to.',
      'scoped_teams',
    );
  }
  return [...new Set(ids)];
}

async function validateScopedOrgs(db: MetaDb, userId: number, ids: string[] | null | undefined) {
  if (!ids || ids.length === 0) return ids === undefined ? undefined : null;
  if (ids.some((id) => !isUuid(id)))
    throw validationError('Invalid organization UUID', 'scoped_organizations');
  const orgs = new Set(await userOrganizationIds(db, userId));
  const wanted = [...new Set(ids.map((id) => id.toLowerCase()))];
  if (wanted.some((id) => !orgs.has(id))) {
    throw validationError(
      'You must be a member of all organizations that you are scoping the key to.',
      'scoped_organizations',
    );
  }
  return wanted;
}

export async function createKey(
  deps: MetaDeps,
  principal: Principal,
  input: KeyInput,
  value?: string,
): Promise<KeyWithValue> {
  const userId = principal.user.id;
  const label = text(input.label ?? '', 'label', 40);
  const scopes = validateScopes(input.scopes ?? []);
  const scopedTeams = (await validateScopedTeams(deps.meta, userId, input.scoped_teams)) ?? null;
  const scopedOrganizations =
    (await validateScopedOrgs(deps.meta, userId, input.scoped_organizations)) ?? null;
  if ((await countUserKeys(deps.meta, userId)) >= MAX_KEYS_PER_USER) {
    throw validationError(
      `You can only have ${MAX_KEYS_PER_USER} personal API keys. Remove an existing key before creating a new one.`,
    );
  }
  const raw = value ?? newPersonalApiKeyValue();
  const record: PersonalApiKeyRecord = {
    id: newKeyId(),
    userId,
    label,
    maskValue: maskKeyValue(raw),
    secureValue: hashPersonalApiKey(raw),
    createdAt: deps.now().toISOString(),
    lastUsedAt: null,
    lastRolledAt: null,
    scopes,
    scopedTeams,
    scopedOrganizations,
  };
  await insertKey(deps.meta, record);
  return { ...record, value: raw };
}

export function listKeys(deps: MetaDeps, principal: Principal): Promise<PersonalApiKeyRecord[]> {
  return listUserKeys(deps.meta, principal.user.id);
}

/**
 * `@current` names the calling key. A key may always read itself; reading other keys needs a
 * full-access key (PostHog refuses personal keys here outright).
 */
export async function getKey(
  deps: MetaDeps,
  principal: Principal,
  id: string,
): Promise<PersonalApiKeyRecord> {
  const own = principal.key;
  const keyId = id === '@current' ? own?.id : id;
  // A key reads only itself, as in PostHog; Burrow lets an unrestricted `*` key manage the others.
  const manages = own && (own.scopes.includes('*') || own.scopes.length === 0) && !isRestrictedKey(principal);
  if (own && keyId !== own.id && !manages) {
    throw permissionDenied('This action does not support Personal API Key access');
  }
  const key = keyId ? await findUserKey(deps.meta, principal.user.id, keyId) : undefined;
  if (!key) throw notFound();
  return key;
}

export async function updateUserKey(deps: MetaDeps, principal: Principal, id: string, input: KeyInput) {
  const key = await getKey(deps, principal, id);
  await updateKey(deps.meta, key.id, {
    label: input.label === undefined ? undefined : text(input.label, 'label', 40),
    scopes: input.scopes === undefined ? undefined : validateScopes(input.scopes),
    scopedTeams: await validateScopedTeams(deps.meta, principal.user.id, input.scoped_teams),
    scopedOrganizations: await validateScopedOrgs(deps.meta, principal.user.id, input.scoped_organizations),
  });
  return { previous: key, updated: (await findUserKey(deps.meta, principal.user.id, key.id))! };
}

export async function rollKey(deps: MetaDeps, principal: Principal, id: string) {
  const key = await getKey(deps, principal, id);
  const raw = newPersonalApiKeyValue();
  const lastRolledAt = deps.now().toISOString();
  await updateKey(deps.meta, key.id, {
    maskValue: maskKeyValue(raw),
    secureValue: hashPersonalApiKey(raw),
    lastRolledAt,
  });
  const updated = (await findUserKey(deps.meta, principal.user.id, key.id))!;
  return { previous: key, updated: { ...updated, value: raw } as KeyWithValue };
}

export async function deleteUserKey(
  deps: MetaDeps,
  principal: Principal,
  id: string,
): Promise<PersonalApiKeyRecord> {
  const key = await getKey(deps, principal, id);
  await deleteKey(deps.meta, key.id);
  return key;
}
