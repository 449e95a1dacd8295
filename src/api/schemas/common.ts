import { type Static, type TSchema, Type } from 'typebox';

/**
 * `T | null` as a JSON-schema type list rather than `anyOf`: fast-json-stringify serialises
 * `anyOf` by running a validator per value, which dominated the cost of list responses.
 */
export const Nullable = <T extends TSchema>(schema: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<Static<T> | null>({
    ...schema,
    ...options,
    type: [(schema as unknown as { type: string }).type, 'null'],
  });

import type { UserRecord } from '../../store/meta/users.js';

export const ErrorBody = Type.Object(
  {
    type: Type.String(),
    code: Type.String(),
    detail: Type.String(),
    attr: Nullable(Type.String()),
  },
  { $id: 'Error', description: "PostHog's error body" },
);

export const DateTime = Type.String({ format: 'date-time' });
export const NullableDateTime = Nullable(DateTime);
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
  hedgehog_config: Nullable(Type.Record(Type.String(), Type.Unknown())),
  role_at_organization: Nullable(Type.String()),
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
