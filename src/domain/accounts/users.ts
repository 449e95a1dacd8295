import { permissionDenied, validationError } from '../../errors.js';
import { findMembership } from '../../store/meta/memberships.js';
import { findOrganization } from '../../store/meta/organizations.js';
import { findTeam, listOrganizationTeams } from '../../store/meta/teams.js';
import { findUser, setUserCurrent, setUserNames, type UserRecord } from '../../store/meta/users.js';
import { currentOf } from '../current.js';
import type { Deps } from '../deps.js';
import { isUuid } from '../ids.js';
import { keyAllowsOrganization, keyAllowsTeam, keyRestriction, type Principal } from '../principal.js';
import { changePassword } from './password-change.js';

/** The caller with their current organization and project and every organization they belong to. */
export async function getMe(deps: Deps, principal: Principal) {
  const { organization, team, organizations } = await currentOf(deps, principal);
  return { user: principal.user, organization, team, organizations };
}

export interface MeUpdate {
  first_name?: string;
  last_name?: string;
  password?: string;
  current_password?: string;
  set_current_organization?: string;
  set_current_team?: number;
}

/** PostHog's answer for an organization or project the user is not in (or that does not exist). */
const doesNotExist = (value: string | number, attr: string) =>
  validationError(`Object with id=${value} does not exist.`, attr, 'does_not_exist');

/**
 * PostHog's switches: `set_current_organization` makes that organization current with its first
 * project, `set_current_team` makes that project and its organization current (applied after the
 * organization when both come). The user must belong to it (400 as PostHog's serializer), and a
 * restricted key may switch only inside its restriction (403, the words of its other refusals).
 */
async function switchTarget(
  deps: Deps,
  principal: Principal,
  input: MeUpdate,
): Promise<{ organizationId: string; teamId: number | null } | undefined> {
  let next: { organizationId: string; teamId: number | null } | undefined;
  const orgId = input.set_current_organization;
  if (orgId !== undefined) {
    const id = orgId.toLowerCase();
    const organization = isUuid(id) ? await findOrganization(deps.meta, id) : undefined;
    if (!organization || !(await findMembership(deps.meta, organization.id, principal.user.id)))
      throw doesNotExist(orgId, 'set_current_organization');
    const scopedTeams = (
      await Promise.all(keyRestriction(principal).teams.map((t) => findTeam(deps.meta, t)))
    ).filter((t) => t !== undefined);
    if (
      !keyAllowsOrganization(
        principal,
        organization.id,
        scopedTeams.map((t) => t.organizationId),
      )
    )
      throw permissionDenied(
        `API key does not have access to the requested organization: ID ${organization.id}.`,
      );
    const first = scopedTeams.length
      ? scopedTeams.find((t) => t.organizationId === organization.id)
      : (await listOrganizationTeams(deps.meta, organization.id, { limit: 1, offset: 0 })).results[0];
    next = { organizationId: organization.id, teamId: first?.id ?? null };
  }
  const teamId = input.set_current_team;
  if (teamId !== undefined) {
    const team = await findTeam(deps.meta, teamId);
    if (!team || !(await findMembership(deps.meta, team.organizationId, principal.user.id)))
      throw doesNotExist(teamId, 'set_current_team');
    if (!keyAllowsTeam(principal, team))
      throw permissionDenied(`API key does not have access to the requested project: ID ${team.id}.`);
    next = { organizationId: team.organizationId, teamId: team.id };
  }
  return next;
}

/** Names and password of the caller; returns the principal with the stored user as it now is. */
export async function updateMe(
  deps: Deps,
  principal: Principal,
  input: MeUpdate,
  sessionToken?: string,
): Promise<Principal> {
  const { password, current_password, first_name, last_name } = input;
  // Checked before anything is written, so a refused switch changes nothing else either.
  const current = await switchTarget(deps, principal, input);
  if (password !== undefined)
    await changePassword(
      deps,
      principal,
      { password, ...(current_password !== undefined ? { current_password } : {}) },
      sessionToken,
    );
  await setUserNames(deps.meta, principal.user.id, {
    ...(first_name !== undefined ? { firstName: first_name } : {}),
    ...(last_name !== undefined ? { lastName: last_name } : {}),
  });
  if (current) await setUserCurrent(deps.meta, principal.user.id, current);
  return { ...principal, user: (await findUser(deps.meta, principal.user.id)) ?? principal.user };
}

/** The users named by created_by / last_modified_by fields, each read once per response. */
export async function usersById(
  deps: Pick<Deps, 'meta'>,
  ids: (number | null)[],
): Promise<Map<number, UserRecord>> {
  const unique = [...new Set(ids.filter((x): x is number => x !== null))];
  const users = await Promise.all(unique.map((id) => findUser(deps.meta, id)));
  return new Map(users.filter((u): u is UserRecord => !!u).map((u) => [u.id, u]));
}
