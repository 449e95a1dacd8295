import { Type } from 'typebox';
import type { InviteWithCreator } from '../../domain/organizations/invites.js';
import { DateTime, Nullable, toUserBasic, UserBasic, Uuid } from './common.js';

const ProjectGrant = Type.Object({
  id: Type.Integer(),
  level: Type.Union([Type.String(), Type.Integer()]),
});

export const Invite = Type.Object({
  id: Uuid,
  target_email: Type.String(),
  first_name: Type.String(),
  emailing_attempt_made: Type.Boolean(),
  level: Type.Integer({ description: '1 member, 8 admin, 15 owner' }),
  is_expired: Type.Boolean(),
  created_by: Nullable(UserBasic),
  created_at: DateTime,
  updated_at: DateTime,
  message: Nullable(Type.String()),
  private_project_access: Type.Array(ProjectGrant),
  invite_url: Type.Optional(
    Type.String({
      description:
        'Only in the answer to creating an invite, and only when no email was sent (no SMTP server, or `send_email: false`): the signup link with its token, to hand over yourself. It cannot be read again.',
    }),
  ),
});

export const InviteInput = Type.Object(
  {
    target_email: Type.String({ format: 'email', maxLength: 254 }),
    first_name: Type.Optional(Type.String({ maxLength: 30 })),
    level: Type.Optional(Type.Integer({ description: '1 member (default), 8 admin, 15 owner' })),
    message: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    // Checked by the domain, which gives PostHog's messages for each malformed shape.
    private_project_access: Type.Optional(
      Type.Unknown({ description: 'null or a list of {"id": project id, "level": "member" | "admin"}' }),
    ),
    send_email: Type.Optional(Type.Boolean({ default: true, description: 'write-only' })),
    combine_pending_invites: Type.Optional(
      Type.Boolean({
        default: false,
        description: "write-only: merge this address's unexpired invites (highest level, union of projects)",
      }),
    ),
  },
  { additionalProperties: false },
);

export function toInvite(i: InviteWithCreator) {
  return {
    id: i.id,
    target_email: i.targetEmail,
    first_name: i.firstName,
    emailing_attempt_made: i.emailingAttemptMade,
    level: i.level,
    is_expired: i.isExpired,
    created_by: i.createdBy ? toUserBasic(i.createdBy) : null,
    created_at: i.createdAt,
    updated_at: i.updatedAt,
    message: i.message,
    private_project_access: i.privateProjectAccess,
    ...(i.inviteUrl ? { invite_url: i.inviteUrl } : {}),
  };
}
