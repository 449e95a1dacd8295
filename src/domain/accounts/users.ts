import { allUserOrganizations } from '../../store/meta/organizations.js';
import { findTeam, listOrganizationTeams } from '../../store/meta/teams.js';
import type { Deps } from '../deps.js';
import type { Principal } from '../principal.js';

/** The caller with their current organization and project and every organization they belong to. */
export async function getMe(deps: Deps, principal: Principal) {
  const { user } = principal;
  const organizations = await allUserOrganizations(deps.meta, user.id);
  const organization =
    organizations.find((o) => o.id === user.currentOrganizationId) ?? organizations[0] ?? null;
  let team = user.currentTeamId ? await findTeam(deps.meta, user.currentTeamId) : undefined;
  // A deleted current project falls back to the organization's first one, as PostHog does.
  if (organization && team?.organizationId !== organization.id) {
    team = (await listOrganizationTeams(deps.meta, organization.id, { limit: 1, offset: 0 })).results[0];
  }
  return { user, organization, team: team ?? null, organizations };
}
