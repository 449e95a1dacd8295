import { Type } from 'typebox';
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

export const OrganizationInput = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 64 })),
    members_can_use_personal_api_keys: Type.Optional(Type.Boolean()),
    is_member_join_email_enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
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
