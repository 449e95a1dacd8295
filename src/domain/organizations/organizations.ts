import { permissionDenied } from '../../errors.js';
import type { MetaDb } from '../../store/meta/db.js';
import { insertMembership } from '../../store/meta/memberships.js';
import {
  findOrganization,
  insertOrganization,
  listUserOrganizations,
  type OrganizationRecord,
  slugExists,
  updateOrganization as storeUpdate,
} from '../../store/meta/organizations.js';
import { listOrganizationTeams, type TeamRecord } from '../../store/meta/teams.js';
import { setUserCurrent } from '../../store/meta/users.js';
import type { OrganizationAccess } from '../access.js';
import type { Deps } from '../deps.js';
import { newUuid, randomBase62 } from '../ids.js';
import { isRestrictedKey, keyRestriction, type Principal } from '../principal.js';
import { text } from '../validate.js';
import { ADMIN, OWNER } from './levels.js';
import { insertProject, insufficientLevel } from './projects.js';

export interface OrganizationInput {
  name?: string;
  members_can_use_personal_api_keys?: boolean;
  is_member_join_email_enabled?: boolean;
}

function slugify(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return base || 'organization';
}

async function uniqueSlug(db: MetaDb, name: string): Promise<string> {
  const base = slugify(name);
  if (!(await slugExists(db, base))) return base;
  return `${base}-${randomBase62(6).toLowerCase()}`;
}

/**
 * Creates an organization with the caller as owner and a first project, and makes it the caller's
 * current organization, as PostHog's organization bootstrap does.
 */
export async function createOrganizationFor(
  db: MetaDb,
  userId: number,
  name: string,
  at: string,
  options: { slug?: string; projectName?: string } = {},
): Promise<{ organization: OrganizationRecord; team: TeamRecord }> {
  const organization: OrganizationRecord = {
    id: newUuid(),
    name: text(name, 'name', 64),
    slug: options.slug ?? (await uniqueSlug(db, name)),
    createdAt: at,
    updatedAt: at,
    membersCanUsePersonalApiKeys: true,
    isMemberJoinEmailEnabled: true,
  };
  await insertOrganization(db, organization);
  await insertMembership(db, {
    id: newUuid(),
    organizationId: organization.id,
    userId,
    level: OWNER,
    joinedAt: at,
    updatedAt: at,
  });
  const team = await insertProject(
    db,
    organization.id,
    { name: options.projectName ?? 'Default project' },
    at,
  );
  await setUserCurrent(db, userId, { organizationId: organization.id, teamId: team.id });
  return { organization, team };
}

export async function createOrganization(deps: Deps, principal: Principal, input: OrganizationInput) {
  // A key restricted to some organizations or projects cannot make itself a new one.
  if (isRestrictedKey(principal)) {
    throw permissionDenied('API keys with scoped organizations or projects cannot create organizations.');
  }
  const at = deps.now().toISOString();
  const { organization } = await deps.meta
    .transaction()
    .execute((trx) => createOrganizationFor(trx, principal.user.id, input.name ?? '', at));
  return { ...organization, membershipLevel: OWNER };
}

export function listOrganizations(deps: Deps, principal: Principal, page: { limit: number; offset: number }) {
  return listUserOrganizations(deps.meta, principal.user.id, page, keyRestriction(principal).organizations);
}

export async function updateOrganization(deps: Deps, access: OrganizationAccess, input: OrganizationInput) {
  if (access.membership.level < ADMIN) throw insufficientLevel();
  await storeUpdate(deps.meta, access.organization.id, {
    name: input.name === undefined ? undefined : text(input.name, 'name', 64),
    membersCanUsePersonalApiKeys: input.members_can_use_personal_api_keys,
    isMemberJoinEmailEnabled: input.is_member_join_email_enabled,
    updatedAt: deps.now().toISOString(),
  });
  return (await findOrganization(deps.meta, access.organization.id)) as OrganizationRecord;
}

/** Every project of an organization, in id order (PostHog lists them inside the organization). */
export async function organizationProjects(deps: Deps, organizationId: string): Promise<TeamRecord[]> {
  return (await listOrganizationTeams(deps.meta, organizationId)).results;
}
