import { isUniqueViolation } from '../../store/meta/errors.js';
import { countOrganizations } from '../../store/meta/organizations.js';
import { findKeyBySecureValue } from '../../store/meta/personal-api-keys.js';
import { findUserByEmail, insertUser, type UserRecord } from '../../store/meta/users.js';
import { createKey } from '../accounts/personal-api-keys.js';
import type { MetaDeps } from '../deps.js';
import { hashPersonalApiKey, newUuid } from '../ids.js';
import { createOrganizationFor } from './organizations.js';

export interface BootstrapResult {
  organization_id: string;
  project_id: number;
  project_api_key: string;
  personal_api_key: string;
  user_email: string;
}

export interface BootstrapOptions {
  adminEmail: string;
  adminApiKey?: string | undefined;
}

const BOOTSTRAP_SLUG = 'default';

/**
 * Makes an empty installation usable: one organization, project, owner and full-access key. Returns
 * what was created, or null when the store already had an organization. Two nodes racing on an empty
 * PostgreSQL both try; the unique bootstrap slug lets exactly one win.
 */
export async function bootstrap(deps: MetaDeps, options: BootstrapOptions): Promise<BootstrapResult | null> {
  if ((await countOrganizations(deps.meta)) > 0) {
    await ensureAdminKey(deps, options);
    return null;
  }
  const at = deps.now().toISOString();
  try {
    return await deps.meta.transaction().execute(async (trx) => {
      const user = await insertUser(trx, {
        uuid: newUuid(),
        distinctId: newUuid(),
        email: options.adminEmail,
        firstName: 'Admin',
        lastName: '',
        passwordHash: null,
        isActive: true,
        isEmailVerified: true,
        currentOrganizationId: null,
        currentTeamId: null,
        createdAt: at,
        lastLogin: null,
      });
      const { organization, team } = await createOrganizationFor(trx, user.id, 'Default organization', at, {
        slug: BOOTSTRAP_SLUG,
        projectName: 'Default project',
      });
      const key = await createKey(
        { ...deps, meta: trx },
        { user, key: null },
        { label: 'Bootstrap key', scopes: ['*'] },
        options.adminApiKey,
      );
      return {
        organization_id: organization.id,
        project_id: team.id,
        project_api_key: team.apiToken,
        personal_api_key: key.value as string,
        user_email: user.email,
      };
    });
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/** With BURROW_ADMIN_API_KEY set, every start makes sure that key exists for the admin user. */
async function ensureAdminKey(deps: MetaDeps, options: BootstrapOptions): Promise<void> {
  if (!options.adminApiKey) return;
  if (await findKeyBySecureValue(deps.meta, hashPersonalApiKey(options.adminApiKey))) return;
  const user: UserRecord | undefined = await findUserByEmail(deps.meta, options.adminEmail);
  if (!user)
    throw new Error(`BURROW_ADMIN_API_KEY is set but no user has the admin email ${options.adminEmail}`);
  await createKey(
    deps,
    { user, key: null },
    { label: 'Admin key (BURROW_ADMIN_API_KEY)', scopes: ['*'] },
    options.adminApiKey,
  );
}
