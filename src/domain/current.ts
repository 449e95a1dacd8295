import { allUserOrganizations, type OrganizationWithLevel } from '../store/meta/organizations.js';
import { findTeam, listOrganizationTeams, type TeamRecord } from '../store/meta/teams.js';
import type { Deps } from './deps.js';
import { keyAllowsOrganization, keyAllowsTeam, keyRestriction, type Principal } from './principal.js';

/**
 * The caller's current organization and project as this credential may see them. The user's
 * current ones are shared by all their keys and sessions (creating an organization or switching
 * elsewhere moves them, as in PostHog), so a restricted key reads them within its restriction: the
 * user's current one when the key allows it, else the first it allows. `@me` shows these and
 * `@current` in a path resolves to them, so the two never disagree.
 */
export async function currentOf(deps: Pick<Deps, 'meta'>, principal: Principal) {
  const { user } = principal;
  const scopedTeams = (
    await Promise.all(keyRestriction(principal).teams.map((id) => findTeam(deps.meta, id)))
  ).filter((t) => t !== undefined);
  const teamOrgIds = scopedTeams.map((t) => t.organizationId);
  const organizations: OrganizationWithLevel[] = (await allUserOrganizations(deps.meta, user.id)).filter(
    (o) => keyAllowsOrganization(principal, o.id, teamOrgIds),
  );
  const organization =
    organizations.find((o) => o.id === user.currentOrganizationId) ?? organizations[0] ?? null;
  let team: TeamRecord | undefined = user.currentTeamId
    ? await findTeam(deps.meta, user.currentTeamId)
    : undefined;
  if (team && !keyAllowsTeam(principal, team)) team = undefined;
  // A deleted current project falls back to the organization's first one, as PostHog does.
  if (organization && team?.organizationId !== organization.id) {
    const candidates = scopedTeams.length
      ? scopedTeams.filter((t) => t.organizationId === organization.id)
      : (await listOrganizationTeams(deps.meta, organization.id, { limit: 1, offset: 0 })).results;
    team = candidates[0];
  }
  return { organization, team: team ?? null, organizations, scopedTeams };
}
