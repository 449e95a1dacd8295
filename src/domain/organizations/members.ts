import { notFound } from '../../errors.js';
import type { MetaDb } from '../../store/meta/db.js';
import {
  deleteMembership,
  findMember,
  listMembers,
  MEMBER_ORDERS,
  type MemberOrder,
  type MemberRecord,
  setMembershipLevel,
} from '../../store/meta/members.js';
import { userOrganizationIds } from '../../store/meta/memberships.js';
import { findTeam, listOrganizationTeams } from '../../store/meta/teams.js';
import { setUserCurrent, type UserRecord } from '../../store/meta/users.js';
import type { OrganizationAccess } from '../access.js';
import type { MetaDeps } from '../deps.js';
import { isUuid } from '../ids.js';
import { choice } from '../validate.js';
import { LEVELS } from './levels.js';
import { checkCanActOn, checkCanLeave, checkLevelChange } from './member-rules.js';

/** The fields a member list may be ordered by (the route adds the `-` descending forms). */
export { MEMBER_ORDERS, type MemberOrder };

export interface MemberQuery {
  email?: string;
  updated_after?: string;
  order?: MemberOrder;
}

export function listOrganizationMembers(
  deps: MetaDeps,
  access: OrganizationAccess,
  query: MemberQuery,
  page: { limit: number; offset: number },
) {
  return listMembers(
    deps.meta,
    access.organization.id,
    {
      email: query.email,
      updatedAfter: query.updated_after && new Date(query.updated_after).toISOString(),
      order: query.order,
    },
    page,
  );
}

/** `@me` is the caller's own membership; anything else must be a member's user uuid. */
async function targetOf(deps: MetaDeps, access: OrganizationAccess, userUuid: string): Promise<MemberRecord> {
  const who =
    userUuid === '@me'
      ? { userId: access.membership.userId }
      : isUuid(userUuid)
        ? { userUuid: userUuid.toLowerCase() }
        : null;
  const member = who && (await findMember(deps.meta, access.organization.id, who));
  if (!member) throw notFound();
  return member;
}

export async function updateMember(
  deps: MetaDeps,
  access: OrganizationAccess,
  userUuid: string,
  input: { level?: number },
): Promise<MemberRecord> {
  const member = await targetOf(deps, access, userUuid);
  checkCanActOn(access.membership, member);
  if (input.level === undefined) return member;
  const level = choice(input.level, LEVELS as readonly number[], 'level');
  checkLevelChange(access.membership, member, level);
  await setMembershipLevel(deps.meta, member.id, level, deps.now().toISOString());
  return targetOf(deps, access, member.user.uuid);
}

/** A removed user whose current organization or project was here moves to their next one. */
async function moveCurrent(db: MetaDb, user: UserRecord, organizationId: string): Promise<void> {
  const team = user.currentTeamId === null ? undefined : await findTeam(db, user.currentTeamId);
  if (user.currentOrganizationId !== organizationId && team?.organizationId !== organizationId) return;
  const [next] = await userOrganizationIds(db, user.id);
  const nextTeam = next
    ? (await listOrganizationTeams(db, next, { limit: 1, offset: 0 })).results[0]
    : undefined;
  await setUserCurrent(db, user.id, { organizationId: next ?? null, teamId: nextTeam?.id ?? null });
}

/**
 * Removes a member (or the caller, leaving). Their keys stay theirs but stop reaching this
 * organization at once: every request checks membership.
 */
export async function removeMember(
  deps: MetaDeps,
  access: OrganizationAccess,
  userUuid: string,
): Promise<MemberRecord> {
  const member = await targetOf(deps, access, userUuid);
  checkCanActOn(access.membership, member);
  checkCanLeave(member);
  await deps.meta.transaction().execute(async (trx) => {
    await deleteMembership(trx, member.id);
    await moveCurrent(trx, member.user, access.organization.id);
  });
  return member;
}
