import { Type } from 'typebox';
import { REJECT_UNKNOWN_FIELDS } from '../../server/validation.js';
import type { OrganizationRecord } from '../../store/meta/organizations.js';
import type { TeamRecord } from '../../store/meta/teams.js';
import { DateTime, Nullable, Uuid } from './common.js';
import { TeamBasic, toTeam } from './teams.js';

export const Organization = Type.Object({
  id: Uuid,
  name: Type.String(),
  slug: Type.String(),
  logo_media_id: Type.Null(),
  created_at: DateTime,
  updated_at: DateTime,
  membership_level: Nullable(Type.Integer()),
  teams: Type.Array(TeamBasic),
  projects: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), organization_id: Uuid })),
  available_product_features: Type.Array(Type.Unknown()),
  is_member_join_email_enabled: Type.Boolean(),
  members_can_use_personal_api_keys: Type.Boolean(),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  customer_id: Type.Null(),
  enforce_2fa: Nullable(Type.Boolean()),
});

/**
 * Fields of the organization Burrow answers but nobody writes (PostHog's read-only ones, and
 * counts it computes): ignored in a write, as DRF ignores them, so an object read can be sent back.
 */
const READ_ONLY = [
  'id',
  'slug',
  'created_at',
  'updated_at',
  'membership_level',
  'plugins_access_level',
  'teams',
  'projects',
  'available_product_features',
  'metadata',
  'customer_id',
  'member_count',
];

/**
 * Writable fields. `logo_media_id` and `enforce_2fa` are accepted only as Burrow answers them
 * (no uploaded media, no 2FA); any other field is a 400 naming it.
 */
export const OrganizationInput = Type.Object(
  {
    ...Object.fromEntries(READ_ONLY.map((k) => [k, Type.Optional(Type.Unknown())])),
    name: Type.Optional(Type.String({ maxLength: 64 })),
    members_can_use_personal_api_keys: Type.Optional(Type.Boolean()),
    is_member_join_email_enabled: Type.Optional(Type.Boolean()),
    logo_media_id: Type.Optional(Type.Null()),
    enforce_2fa: Type.Optional(Type.Union([Type.Literal(false), Type.Null()])),
  },
  { additionalProperties: false, ...REJECT_UNKNOWN_FIELDS },
);

export function toOrganization(org: OrganizationRecord, level: number | null, teams: TeamRecord[]) {
  return {
    id: org.id,
    name: org.name,
    slug: org.slug,
    logo_media_id: null,
    created_at: org.createdAt,
    updated_at: org.updatedAt,
    membership_level: level,
    teams: teams.map(toTeam),
    projects: teams.map((t) => ({ id: t.id, name: t.name, organization_id: t.organizationId })),
    available_product_features: [],
    is_member_join_email_enabled: org.isMemberJoinEmailEnabled,
    members_can_use_personal_api_keys: org.membersCanUsePersonalApiKeys,
    metadata: {},
    customer_id: null,
    enforce_2fa: null,
  };
}
