import { permissionDenied, validationError } from '../../errors.js';
import type { ProjectGrant } from '../../store/meta/invites.js';
import type { TeamRecord } from '../../store/meta/teams.js';
import { choice } from '../validate.js';
import { LEVELS } from './levels.js';

export interface InviteInput {
  target_email?: string;
  first_name?: string;
  level?: number;
  message?: string | null;
  private_project_access?: unknown;
  send_email?: boolean;
  combine_pending_invites?: boolean;
}

export interface ValidInvite {
  targetEmail: string;
  firstName: string;
  level: number;
  message: string | null;
  privateProjectAccess: ProjectGrant[];
  sendEmail: boolean;
  combinePendingInvites: boolean;
}

export const INVITE_DAYS_VALIDITY = 3;
const DAY_MS = 24 * 60 * 60 * 1000;

export const inviteExpiresAt = (invite: { createdAt: string }) =>
  new Date(Date.parse(invite.createdAt) + INVITE_DAYS_VALIDITY * DAY_MS);

export const isExpired = (invite: { createdAt: string }, now: Date) =>
  inviteExpiresAt(invite).getTime() < now.getTime();

/** Project access levels: PostHog's access-control names, and the legacy 1 (member) / 8 (admin). */
const PROJECT_LEVELS: Array<string | number> = ['none', 'member', 'admin', 1, 8];
const PROJECT_RANK = new Map<string | number, number>([
  ['none', 0],
  ['member', 1],
  [1, 1],
  ['admin', 2],
  [8, 2],
]);
export const projectRank = (level: string | number) => PROJECT_RANK.get(level) ?? 0;

/** Like Django's EmailField: surrounding space trimmed and the domain part lowercased. */
export function normalizeEmail(email: string): string {
  const trimmed = email.trim();
  const at = trimmed.lastIndexOf('@');
  return at < 0 ? trimmed : trimmed.slice(0, at) + trimmed.slice(at).toLowerCase();
}

function projectGrants(value: unknown): ProjectGrant[] {
  const fail = (detail: string) => validationError(detail, 'private_project_access');
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw fail('The field must be a list of dictionaries.');
  return value.map((item: unknown) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw fail('Each item in the list must be a dictionary.');
    }
    const { id, level } = item as Record<string, unknown>;
    if (!('id' in item) || !('level' in item))
      throw fail('Each dictionary must contain "id" and "level" keys.');
    if (typeof id !== 'number' || !Number.isSafeInteger(id)) throw fail('The "id" field must be an integer.');
    if (!PROJECT_LEVELS.includes(level as string | number)) {
      throw fail('The "level" field must be a valid access level.');
    }
    return { id, level: level as string | number };
  });
}

/**
 * The checks that need no store writes, in PostHog's order: the level choice, the inviter's own
 * level, then the projects. Burrow has no private projects yet, so any member may grant access to
 * any project of the organization; a project elsewhere is refused.
 */
export function validateInvite(input: InviteInput, inviterLevel: number, teams: TeamRecord[]): ValidInvite {
  const level = choice(input.level ?? 1, LEVELS as readonly number[], 'level');
  if (level > inviterLevel) {
    throw permissionDenied('You cannot invite a user with a higher permission level than your own.');
  }
  const grants = projectGrants(input.private_project_access);
  const own = new Set(teams.map((t) => t.id));
  for (const grant of grants) {
    if (!own.has(grant.id)) {
      throw validationError(
        'Project does not exist on this organization, or it is private and you do not have access to it.',
        'private_project_access',
      );
    }
  }
  return {
    targetEmail: normalizeEmail(input.target_email ?? ''),
    firstName: (input.first_name ?? '').trim(),
    level,
    message: input.message ?? null,
    privateProjectAccess: grants,
    sendEmail: input.send_email ?? true,
    combinePendingInvites: input.combine_pending_invites ?? false,
  };
}

/** New grants first, then older ones merged in, keeping each project's highest level. */
export function mergeGrants(fresh: ProjectGrant[], older: ProjectGrant[][]): ProjectGrant[] {
  const merged = new Map<number, ProjectGrant>();
  for (const grant of [...fresh, ...older.flat()]) {
    const seen = merged.get(grant.id);
    if (!seen || projectRank(grant.level) > projectRank(seen.level)) merged.set(grant.id, grant);
  }
  return [...merged.values()];
}
