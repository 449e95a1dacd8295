import { Type } from 'typebox';
import type { UserRecord } from '../../store/meta/users.js';

export const ErrorBody = Type.Object(
  {
    type: Type.String(),
    code: Type.String(),
    detail: Type.String(),
    attr: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'Error', description: "PostHog's error body" },
);

export const DateTime = Type.String({ format: 'date-time' });
export const NullableDateTime = Type.Union([DateTime, Type.Null()]);
export const Uuid = Type.String({ format: 'uuid' });

/** The user object embedded as created_by, last_modified_by and user. */
export const UserBasic = Type.Object({
  id: Type.Integer(),
  uuid: Uuid,
  distinct_id: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  email: Type.String(),
  is_email_verified: Type.Boolean(),
  hedgehog_config: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  role_at_organization: Type.Union([Type.String(), Type.Null()]),
});

export function toUserBasic(user: UserRecord) {
  return {
    id: user.id,
    uuid: user.uuid,
    distinct_id: user.distinctId,
    first_name: user.firstName,
    last_name: user.lastName,
    email: user.email,
    is_email_verified: user.isEmailVerified,
    hedgehog_config: null,
    role_at_organization: null,
  };
}

export const ProjectIdParams = Type.Object({ project_id: Type.String() });
export const OrganizationIdParams = Type.Object({ organization_id: Type.String() });
