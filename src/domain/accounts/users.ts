import { allUserOrganizations } from '../../store/meta/organizations.js';
import { findTeam, listOrganizationTeams } from '../../store/meta/teams.js';
import { findUser, setUserNames, type UserRecord } from '../../store/meta/users.js';
import type { Deps } from '../deps.js';
import { keyAllowsOrganization, keyAllowsTeam, keyRestriction, type Principal } from '../principal.js';
import { changePassword } from './password-change.js';

/** The caller with their current organization and project and every organization they belong to. */
export async function getMe(deps: Deps, principal: Principal) {
  const { user } = principal;
  // A restricted key sees only the organizations and projects it is scoped to.
  const scopedTeams = (
    await Promise.all(keyRestriction(principal).teams.map((id) => findTeam(deps.meta, id)))
  ).filter((t) => t !== undefined);
  const teamOrgIds = scopedTeams.map((t) => t.organizationId);
  const organizations = (await allUserOrganizations(deps.meta, user.id)).filter((o) =>
    keyAllowsOrganization(principal, o.id, teamOrgIds),
  );
  const organization =
    organizations.find((o) => o.id === user.currentOrganizationId) ?? organizations[0] ?? null;
  let team = user.currentTeamId ? await findTeam(deps.meta, user.currentTeamId) : undefined;
  if (team && !keyAllowsTeam(principal, team)) team = undefined;
  // A deleted current project falls back to the organization's first one, as PostHog does.
  if (organization && team?.organizationId !== organization.id) {
    const candidates = scopedTeams.length
      ? scopedTeams.filter((t) => t.organizationId === organization.id)
      : (await listOrganizationTeams(deps.meta, organization.id, { limit: 1, offset: 0 })).results;
    team = candidates[0];
  }
  return { user, organization, team: team ?? null, organizations };
}

export interface MeUpdate {
  first_name?: string;
  last_name?: string;
  password?: string;
  current_password?: string;
}

/** Names and password of the caller; returns the principal with the stored user as it now is. */
export async function updateMe(
  deps: Deps,
  principal: Principal,
  input: MeUpdate,
  sessionToken?: string,
): Promise<Principal> {
  const { password, current_password, first_name, last_name } = input;
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
