import { notFound, permissionDenied } from '../errors.js';
import { findMembership, type MembershipRecord, userOrganizationIds } from '../store/meta/memberships.js';
import { findOrganization, type OrganizationRecord } from '../store/meta/organizations.js';
import { findTeam, listOrganizationTeams, type TeamRecord } from '../store/meta/teams.js';
import { currentOf } from './current.js';
import type { Deps } from './deps.js';
import { isUuid } from './ids.js';
import { ADMIN } from './organizations/levels.js';
import { grantedScopes, isRestrictedKey, type Principal } from './principal.js';
import { missingScope, type RouteScope } from './scopes.js';

export interface OrganizationAccess {
  organization: OrganizationRecord;
  membership: MembershipRecord;
}

export interface ProjectAccess extends OrganizationAccess {
  team: TeamRecord;
}

export type Target = { organizationId: string } | { projectId: string } | Record<string, never>;

const MAX_INT4 = 2_147_483_647;

async function currentOrganizationId(deps: Deps, principal: Principal): Promise<string | undefined> {
  return principal.user.currentOrganizationId ?? (await userOrganizationIds(deps.meta, principal.user.id))[0];
}

async function resolveOrganization(
  deps: Deps,
  principal: Principal,
  raw: string,
): Promise<OrganizationRecord> {
  const id =
    raw !== '@current'
      ? raw
      : isRestrictedKey(principal)
        ? (await currentOf(deps, principal)).organization?.id
        : await currentOrganizationId(deps, principal);
  const organization = id && isUuid(id) ? await findOrganization(deps.meta, id.toLowerCase()) : undefined;
  if (!organization) throw notFound();
  return organization;
}

async function resolveTeam(deps: Deps, principal: Principal, raw: string): Promise<TeamRecord> {
  let id: number | undefined;
  if (raw === '@current' && isRestrictedKey(principal)) {
    // The user's current project may lie outside this key's restriction (another key or a session
    // moved it): the key's own current project is the one `@me` shows it.
    id = (await currentOf(deps, principal)).team?.id;
  } else if (raw === '@current') {
    // The current project may have been deleted since the principal was read (cached, or FK set null):
    // then fall back to the current organization's first project, as PostHog's `user.team` does.
    const current = principal.user.currentTeamId;
    const team = current == null ? undefined : await findTeam(deps.meta, current);
    if (team) return team;
    const orgId = await currentOrganizationId(deps, principal);
    id = orgId
      ? (await listOrganizationTeams(deps.meta, orgId, { limit: 1, offset: 0 })).results[0]?.id
      : undefined;
  } else if (/^\d{1,10}$/.test(raw) && Number(raw) <= MAX_INT4) {
    id = Number(raw);
  }
  const team = id === undefined ? undefined : await findTeam(deps.meta, id);
  if (!team) throw notFound();
  return team;
}

/**
 * The checks that need no store: the key's project and organization restrictions and its scopes.
 * A route without a project or organization in its path is authorised by this alone.
 */
export function checkKey(
  principal: Principal,
  required: RouteScope,
  team?: TeamRecord,
  organization?: OrganizationRecord,
): void {
  const key = principal.key;
  const scopedTeams = key?.scopedTeams ?? [];
  const scopedOrgs = key?.scopedOrganizations ?? [];
  const userScoped = !('kind' in required) && required.object === 'user';
  if (team && scopedTeams.length > 0 && !scopedTeams.includes(team.id)) {
    throw permissionDenied(`API key does not have access to the requested project: ID ${team.id}.`);
  }
  // As in PostHog, every endpoint that is not project-based refuses such a key (not only org-nested
  // ones), so a project-scoped key cannot list or create organizations or mint keys. `@me` and a
  // key reading itself are exempt.
  const selfOnly = userScoped || ('kind' in required && required.kind === 'authenticated');
  if (!team && !selfOnly && scopedTeams.length > 0) {
    throw permissionDenied('API keys with scoped projects are only supported on project-based endpoints.');
  }
  if (organization && scopedOrgs.length > 0 && !userScoped && !scopedOrgs.includes(organization.id)) {
    throw permissionDenied(
      `API key does not have access to the requested organization: ID ${organization.id}.`,
    );
  }

  const missing = key ? missingScope(grantedScopes(principal), required) : null;
  if (missing === 'INTERNAL') throw permissionDenied('This action does not support Personal API Key access');
  // A restricted key must not reach internal operations such as minting keys: that would let it
  // create an unrestricted one.
  if (
    key &&
    'kind' in required &&
    required.kind === 'internal' &&
    (scopedTeams.length > 0 || scopedOrgs.length > 0)
  ) {
    throw permissionDenied('This action does not support Personal API Key access');
  }
  if (missing) throw permissionDenied(`API key missing required scope '${missing}'`);
}

/**
 * Authorises one request, in PostHog's order: the object must exist (404), a key's project and
 * organization restrictions (403), the route's scope (403), then membership of the organization
 * (403) and the organization's personal-key policy (403).
 */
export async function authorize(
  deps: Deps,
  principal: Principal,
  required: RouteScope,
  target: Target,
): Promise<OrganizationAccess | ProjectAccess | null> {
  const key = principal.key;
  let team: TeamRecord | undefined;
  let organization: OrganizationRecord | undefined;
  if ('projectId' in target) {
    team = await resolveTeam(deps, principal, target.projectId);
    organization = await findOrganization(deps.meta, team.organizationId);
    if (!organization) throw notFound();
  } else if ('organizationId' in target) {
    organization = await resolveOrganization(deps, principal, target.organizationId);
  }

  checkKey(principal, required, team, organization);

  if (!organization) return null;
  const membership = await findMembership(deps.meta, organization.id, principal.user.id);
  if (!membership) throw permissionDenied();
  if (key && !organization.membersCanUsePersonalApiKeys && membership.level < ADMIN) {
    throw permissionDenied(
      `Organization '${organization.name}' does not allow using personal API keys. Contact an admin to enable personal API keys for this organization.`,
    );
  }
  return team ? { organization, membership, team } : { organization, membership };
}
