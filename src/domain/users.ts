import { findOrganization, listUserOrganizations } from '../store/meta/organizations.js';
import { findTeam } from '../store/meta/teams.js';
import type { Deps } from './deps.js';
import type { Principal } from './principal.js';

/** The caller with their current organization and project and every organization they belong to. */
export async function getMe(deps: Deps, principal: Principal) {
  const { user } = principal;
  const organizations = await listUserOrganizations(deps.meta, user.id, { limit: 1000, offset: 0 });
  const currentOrgId = user.currentOrganizationId ?? organizations.results[0]?.id ?? null;
  const [organization, team] = await Promise.all([
    currentOrgId ? findOrganization(deps.meta, currentOrgId) : undefined,
    user.currentTeamId ? findTeam(deps.meta, user.currentTeamId) : undefined,
  ]);
  const level = organizations.results.find((o) => o.id === currentOrgId)?.membershipLevel ?? null;
  return {
    user,
    organization: organization ? { ...organization, membershipLevel: level } : null,
    team: team ?? null,
    organizations: organizations.results,
  };
}
