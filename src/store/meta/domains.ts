import { bool, iso, isoOrNull } from './codec.js';
import type { MetaDb } from './db.js';

export interface DomainRecord {
  id: string;
  organizationId: string;
  domain: string;
  verificationChallenge: string;
  verifiedAt: string | null;
  lastVerificationRetry: string | null;
  jitProvisioningEnabled: boolean;
  ssoEnforcement: string;
  samlEntityId: string | null;
  samlAcsUrl: string | null;
  samlX509Cert: string | null;
  createdAt: string;
}

export type DomainPatch = Partial<
  Pick<
    DomainRecord,
    | 'verifiedAt'
    | 'lastVerificationRetry'
    | 'jitProvisioningEnabled'
    | 'ssoEnforcement'
    | 'samlEntityId'
    | 'samlAcsUrl'
    | 'samlX509Cert'
  >
>;

type Row = {
  id: string;
  organization_id: string;
  domain: string;
  verification_challenge: string;
  verified_at: Date | string | null;
  last_verification_retry: Date | string | null;
  jit_provisioning_enabled: boolean | number;
  sso_enforcement: string;
  saml_entity_id: string | null;
  saml_acs_url: string | null;
  saml_x509_cert: string | null;
  created_at: Date | string;
};

function toRecord(row: Row): DomainRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    domain: row.domain,
    verificationChallenge: row.verification_challenge,
    verifiedAt: isoOrNull(row.verified_at),
    lastVerificationRetry: isoOrNull(row.last_verification_retry),
    jitProvisioningEnabled: bool(row.jit_provisioning_enabled),
    ssoEnforcement: row.sso_enforcement,
    samlEntityId: row.saml_entity_id,
    samlAcsUrl: row.saml_acs_url,
    samlX509Cert: row.saml_x509_cert,
    createdAt: iso(row.created_at),
  };
}

export async function listDomains(
  db: MetaDb,
  organizationId: string,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: DomainRecord[] }> {
  const base = db.selectFrom('organization_domains').where('organization_id', '=', organizationId);
  const [countRow, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('domain').limit(page.limit).offset(page.offset).execute(),
  ]);
  return { count: Number(countRow.n), results: rows.map(toRecord) };
}

export async function findDomain(
  db: MetaDb,
  organizationId: string,
  id: string,
): Promise<DomainRecord | undefined> {
  const row = await db
    .selectFrom('organization_domains')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toRecord(row);
}

export async function domainTaken(db: MetaDb, domain: string): Promise<boolean> {
  const row = await db
    .selectFrom('organization_domains')
    .select('id')
    .where('domain', '=', domain)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertDomain(db: MetaDb, d: DomainRecord): Promise<void> {
  await db
    .insertInto('organization_domains')
    .values({
      id: d.id,
      organization_id: d.organizationId,
      domain: d.domain,
      verification_challenge: d.verificationChallenge,
      verified_at: d.verifiedAt,
      last_verification_retry: d.lastVerificationRetry,
      jit_provisioning_enabled: d.jitProvisioningEnabled,
      sso_enforcement: d.ssoEnforcement,
      saml_entity_id: d.samlEntityId,
      saml_acs_url: d.samlAcsUrl,
      saml_x509_cert: d.samlX509Cert,
      created_at: d.createdAt,
    })
    .execute();
}

export async function updateDomain(db: MetaDb, id: string, patch: DomainPatch): Promise<void> {
  if (Object.values(patch).every((v) => v === undefined)) return;
  await db
    .updateTable('organization_domains')
    .set({
      verified_at: patch.verifiedAt,
      last_verification_retry: patch.lastVerificationRetry,
      jit_provisioning_enabled: patch.jitProvisioningEnabled,
      sso_enforcement: patch.ssoEnforcement,
      saml_entity_id: patch.samlEntityId,
      saml_acs_url: patch.samlAcsUrl,
      saml_x509_cert: patch.samlX509Cert,
    })
    .where('id', '=', id)
    .execute();
}

export async function deleteDomain(db: MetaDb, id: string): Promise<void> {
  await db.deleteFrom('organization_domains').where('id', '=', id).execute();
}
