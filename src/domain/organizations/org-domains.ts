import { randomBytes } from 'node:crypto';
import { notFound, validationError } from '../../errors.js';
import {
  type DomainRecord,
  domainTaken,
  findDomain,
  insertDomain,
  listDomains,
  deleteDomain as storeDelete,
  updateDomain as storeUpdate,
} from '../../store/meta/domains.js';
import { isUniqueViolation } from '../../store/meta/errors.js';
import type { OrganizationAccess } from '../access.js';
import type { MetaDeps } from '../deps.js';
import { isUuid, newUuid } from '../ids.js';
import { ADMIN } from './levels.js';
import { domainName, samlAcsUrl, samlEntityId, samlX509Cert } from './org-domain-fields.js';
import { insufficientLevel } from './projects.js';

export interface DomainInput {
  domain?: string;
  jit_provisioning_enabled?: boolean;
  sso_enforcement?: string;
  saml_entity_id?: string | null;
  saml_acs_url?: string | null;
  saml_x509_cert?: string | null;
}

export function requireAdmin(access: OrganizationAccess): void {
  if (access.membership.level < ADMIN) throw insufficientLevel();
}

const duplicate = () => validationError('domain with this domain already exists.', 'domain', 'unique');

function samlPatch(input: DomainInput) {
  return {
    samlEntityId: input.saml_entity_id === undefined ? undefined : samlEntityId(input.saml_entity_id),
    samlAcsUrl: input.saml_acs_url === undefined ? undefined : samlAcsUrl(input.saml_acs_url),
    samlX509Cert: input.saml_x509_cert === undefined ? undefined : samlX509Cert(input.saml_x509_cert),
  };
}

export function listOrganizationDomains(
  deps: MetaDeps,
  access: OrganizationAccess,
  page: { limit: number; offset: number },
) {
  return listDomains(deps.meta, access.organization.id, page);
}

export async function getDomain(deps: MetaDeps, access: OrganizationAccess, id: string) {
  const domain = isUuid(id)
    ? await findDomain(deps.meta, access.organization.id, id.toLowerCase())
    : undefined;
  if (!domain) throw notFound();
  return domain;
}

/**
 * A new domain always starts unverified with a fresh challenge; JIT provisioning and SSO
 * enforcement sent on create are dropped, as they need a verified domain.
 */
export async function createDomain(deps: MetaDeps, access: OrganizationAccess, input: DomainInput) {
  requireAdmin(access);
  const domain = domainName(input.domain ?? '');
  const saml = samlPatch(input);
  if (await domainTaken(deps.meta, domain)) throw duplicate();
  const record: DomainRecord = {
    id: newUuid(),
    organizationId: access.organization.id,
    domain,
    verificationChallenge: randomBytes(32).toString('base64url'),
    verifiedAt: null,
    lastVerificationRetry: null,
    jitProvisioningEnabled: false,
    ssoEnforcement: '',
    samlEntityId: saml.samlEntityId ?? null,
    samlAcsUrl: saml.samlAcsUrl ?? null,
    samlX509Cert: saml.samlX509Cert ?? null,
    createdAt: deps.now().toISOString(),
  };
  try {
    await insertDomain(deps.meta, record);
  } catch (error) {
    // Two organizations claiming the same domain at once: the unique index decides.
    if (isUniqueViolation(error)) throw duplicate();
    throw error;
  }
  return record;
}

/** The domain name itself never changes (a `domain` in the body is ignored). */
export async function updateDomain(
  deps: MetaDeps,
  access: OrganizationAccess,
  id: string,
  input: DomainInput,
) {
  requireAdmin(access);
  const current = await getDomain(deps, access, id);
  const saml = samlPatch(input);
  if (!current.verifiedAt) {
    for (const attr of ['jit_provisioning_enabled', 'sso_enforcement'] as const) {
      if (input[attr] !== undefined) {
        throw validationError(
          'This attribute cannot be updated until the domain is verified.',
          attr,
          'verification_required',
        );
      }
    }
  }
  await storeUpdate(deps.meta, current.id, {
    jitProvisioningEnabled: input.jit_provisioning_enabled,
    ssoEnforcement: input.sso_enforcement?.trim(),
    ...saml,
  });
  return getDomain(deps, access, current.id);
}

export async function deleteDomain(deps: MetaDeps, access: OrganizationAccess, id: string) {
  requireAdmin(access);
  const current = await getDomain(deps, access, id);
  await storeDelete(deps.meta, current.id);
}
