import { Type } from 'typebox';
import { hasSaml } from '../../domain/organizations/org-domain-fields.js';
import type { DomainRecord } from '../../store/meta/domains.js';
import { Nullable, NullableDateTime, Uuid } from './common.js';

export const Domain = Type.Object({
  id: Uuid,
  domain: Type.String(),
  is_verified: Type.Boolean(),
  verified_at: NullableDateTime,
  verification_challenge: Type.String({
    description: 'Publish this as a TXT record of `_posthog-challenge.<domain>`, then call verify',
  }),
  jit_provisioning_enabled: Type.Boolean(),
  sso_enforcement: Type.String(),
  has_saml: Type.Boolean(),
  saml_entity_id: Nullable(Type.String()),
  saml_acs_url: Nullable(Type.String()),
  saml_x509_cert: Nullable(Type.String()),
});

/** Writable fields; read-only ones sent back (id, is_verified, …) are dropped, as DRF does. */
export const DomainInput = Type.Object(
  {
    domain: Type.Optional(Type.String()),
    jit_provisioning_enabled: Type.Optional(Type.Boolean()),
    sso_enforcement: Type.Optional(Type.String({ maxLength: 28 })),
    saml_entity_id: Type.Optional(Nullable(Type.String())),
    saml_acs_url: Type.Optional(Nullable(Type.String())),
    saml_x509_cert: Type.Optional(Nullable(Type.String())),
  },
  { additionalProperties: false },
);

export const DomainCreate = Type.Object(
  { ...DomainInput.properties, domain: Type.String() },
  { additionalProperties: false },
);

export function toDomain(d: DomainRecord) {
  return {
    id: d.id,
    domain: d.domain,
    is_verified: d.verifiedAt !== null,
    verified_at: d.verifiedAt,
    verification_challenge: d.verificationChallenge,
    jit_provisioning_enabled: d.jitProvisioningEnabled,
    sso_enforcement: d.ssoEnforcement,
    has_saml: hasSaml(d),
    saml_entity_id: d.samlEntityId,
    saml_acs_url: d.samlAcsUrl,
    saml_x509_cert: d.samlX509Cert,
  };
}
