import { createHash, randomBytes } from 'node:crypto';
import { authenticationFailed } from '../../errors.js';
import {
  deleteSecretKey,
  findSecretKey,
  saveSecretKey,
  teamIdBySecretKey,
} from '../../store/meta/flag-lookups.js';
import { findTeam, type TeamRecord } from '../../store/meta/teams.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import { hashPersonalApiKey, maskKeyValue } from '../ids.js';
import { ADMIN } from '../organizations/levels.js';
import { insufficientLevel } from '../organizations/projects.js';
import type { Principal } from '../principal.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function newSecretValue(): string {
  const bytes = randomBytes(43);
  let out = 'phs_';
  for (const b of bytes) out += ALPHABET[b % 62];
  return out;
}

/**
 * The key reads every flag definition and can evaluate any person's flags, so, as PostHog's
 * TeamMemberStrictManagementPermission on its rotate and delete actions, only an admin or owner of
 * the organization may mint, replace or revoke it. Members may still see its mask.
 */
function requireAdmin(access: ProjectAccess): void {
  if (access.membership.level < ADMIN) throw insufficientLevel();
}

/** Mints (or replaces) the project's secret key; the raw value is returned this once only. */
export async function rotateSecretKey(deps: Deps, access: ProjectAccess, principal: Principal) {
  requireAdmin(access);
  const value = newSecretValue();
  const createdAt = deps.now().toISOString();
  await saveSecretKey(
    deps.meta,
    access.team.id,
    hashPersonalApiKey(value),
    maskKeyValue(value),
    createdAt,
    principal.user.id,
  );
  return { secret_api_token: value, mask_value: maskKeyValue(value), created_at: createdAt };
}

export async function describeSecretKey(deps: Deps, access: ProjectAccess) {
  const key = await findSecretKey(deps.meta, access.team.id);
  return { mask_value: key?.maskValue ?? null, created_at: key?.createdAt ?? null };
}

export async function revokeSecretKey(deps: Deps, access: ProjectAccess) {
  requireAdmin(access);
  await deleteSecretKey(deps.meta, access.team.id);
}

/** The project a raw `phs_` key belongs to; 401 in PostHog's words when it names none. */
export async function teamOfSecretKey(deps: Pick<Deps, 'meta'>, raw: string): Promise<TeamRecord> {
  const teamId = await teamIdBySecretKey(deps.meta, hashPersonalApiKey(raw));
  const team = teamId === undefined ? undefined : await findTeam(deps.meta, teamId);
  if (!team) throw authenticationFailed('Project secret API key is invalid.');
  return team;
}

/** A stable tag for a rendered answer (ETag). */
export const etagOf = (text: string) => `"${createHash('sha1').update(text).digest('hex').slice(0, 32)}"`;
