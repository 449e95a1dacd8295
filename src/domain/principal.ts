import type { PersonalApiKeyRecord } from '../store/meta/personal-api-keys.js';
import type { UserRecord } from '../store/meta/users.js';

/** Who is calling, and through which credential. Session logins (no key) arrive in a later issue. */
export interface Principal {
  user: UserRecord;
  key: PersonalApiKeyRecord | null;
}

/** A key with null or empty scopes is a legacy full-access key, as in PostHog's classic behaviour. */
export function grantedScopes(principal: Principal): string[] {
  if (!principal.key) return ['*'];
  return principal.key.scopes.length > 0 ? principal.key.scopes : ['*'];
}

/**
 * A key's restrictions, empty lists when it has none (null and `[]` mean the same: unrestricted).
 * Whatever a restricted key reads or does stays inside them, on every route.
 */
export function keyRestriction(principal: Principal): { teams: number[]; organizations: string[] } {
  return {
    teams: principal.key?.scopedTeams ?? [],
    organizations: principal.key?.scopedOrganizations ?? [],
  };
}

export function isRestrictedKey(principal: Principal): boolean {
  const r = keyRestriction(principal);
  return r.teams.length > 0 || r.organizations.length > 0;
}

/** Whether the key may see this project (of organization `organizationId`). */
export function keyAllowsTeam(principal: Principal, team: { id: number; organizationId: string }): boolean {
  const r = keyRestriction(principal);
  if (r.teams.length > 0 && !r.teams.includes(team.id)) return false;
  return r.organizations.length === 0 || r.organizations.includes(team.organizationId);
}

/**
 * Whether the key may see this organization: one it is scoped to, or, for a project-scoped key,
 * one holding a project it is scoped to (`teamOrgIds`: the organizations of those projects).
 */
export function keyAllowsOrganization(
  principal: Principal,
  organizationId: string,
  teamOrgIds: string[] = [],
) {
  const r = keyRestriction(principal);
  if (r.organizations.length > 0 && !r.organizations.includes(organizationId)) return false;
  return r.teams.length === 0 || teamOrgIds.includes(organizationId);
}
