import { ApiError, validationError } from '../../errors.js';
import { updateDomain } from '../../store/meta/domains.js';
import type { OrganizationAccess } from '../access.js';
import type { MetaDeps } from '../deps.js';
import { getDomain, requireAdmin } from './org-domains.js';

/** TXT records of a name, each as its character-strings; rejects with node's DNS error codes. */
export type TxtLookup = (name: string) => Promise<string[][]>;

export const challengeName = (domain: string) => `_posthog-challenge.${domain}`;

/**
 * Answers that say "this name has no matching record": no such name, no TXT data, or the
 * authoritative servers failing (SERVFAIL), which PostHog also treats as not verified.
 */
const NO_RECORD = new Set(['ENOTFOUND', 'ENODATA', 'ESERVFAIL', 'ENONAME']);

const dnsUnavailable = (name: string, code: string) =>
  new ApiError(
    503,
    'server_error',
    'dns_unavailable',
    `Could not look up ${name} (${code === 'ETIMEOUT' ? 'timed out' : code}); try again later.`,
    null,
    { 'Retry-After': '30' },
  );

async function txtRecords(lookup: TxtLookup, name: string): Promise<string[][]> {
  try {
    return await lookup(name);
  } catch (error) {
    const code = String((error as { code?: unknown }).code ?? 'EUNKNOWN');
    if (NO_RECORD.has(code)) return [];
    // A timeout or an unreachable resolver says nothing about the domain: the caller may retry.
    throw dnsUnavailable(name, code);
  }
}

/**
 * Looks up `_posthog-challenge.<domain>` and marks the domain verified when one of its TXT records
 * is exactly the challenge. A miss is not an error: the domain comes back unverified with
 * `last_verification_retry` set, as in PostHog.
 */
export async function verifyDomain(
  deps: MetaDeps,
  access: OrganizationAccess,
  id: string,
  lookup: TxtLookup,
) {
  requireAdmin(access);
  const domain = await getDomain(deps, access, id);
  if (domain.verifiedAt) {
    throw validationError('This domain has already been verified.', null, 'already_verified');
  }
  const records = await txtRecords(lookup, challengeName(domain.domain));
  const now = deps.now().toISOString();
  const matched = records.some((chunks) => chunks.join('') === domain.verificationChallenge);
  await updateDomain(
    deps.meta,
    domain.id,
    matched ? { verifiedAt: now, lastVerificationRetry: null } : { lastVerificationRetry: now },
  );
  return getDomain(deps, access, domain.id);
}
