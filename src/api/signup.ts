import { Type } from 'typebox';
import { resolveSession, SESSION_COOKIE, startSession } from '../domain/accounts/login-sessions.js';
import { acceptInvite, inviteForSignup } from '../domain/accounts/signup.js';
import { inviteExpiresAt } from '../domain/organizations/invite-rules.js';
import { PUBLIC } from '../domain/scopes.js';
import { sessionToken } from '../server/auth.js';
import type { ApiPlugin } from './context.js';
import { setSessionCookie } from './login-sessions.js';
import { DateTime, toUserBasic, UserBasic, Uuid } from './schemas/common.js';

const tags = ['signup'];
const Params = Type.Object({ invite_id: Type.String() });

const InviteInfo = Type.Object({
  id: Uuid,
  target_email: Type.String(),
  first_name: Type.String(),
  organization_name: Type.String(),
  level: Type.Integer(),
  expires_at: DateTime,
});

const SignupBody = Type.Object(
  {
    token: Type.Optional(
      Type.String({ maxLength: 256, description: 'The invite token from the invite email (required)' }),
    ),
    first_name: Type.Optional(Type.String({ minLength: 1, maxLength: 150 })),
    last_name: Type.Optional(Type.String({ maxLength: 150 })),
    password: Type.Optional(Type.String({ minLength: 8, maxLength: 128 })),
    email: Type.Optional(
      Type.String({ maxLength: 254, description: 'If sent, must be the invited address' }),
    ),
  },
  { additionalProperties: false },
);

const Joined = Type.Object({
  ...UserBasic.properties,
  organization_id: Uuid,
  level: Type.Integer(),
});

/**
 * PostHog's invite signup, public. The invite id is not a credential (every member lists invites):
 * accepting also needs the token only the invite email carries.
 */
export const signupRoutes: ApiPlugin = async (app, { deps }) => {
  app.get(
    '/api/signup/:invite_id/',
    {
      config: { scope: PUBLIC },
      schema: {
        tags,
        summary: 'What an invite is for (400 when it is unknown, used or expired)',
        params: Params,
        response: { 200: InviteInfo },
      },
    },
    async (request) => {
      const { invite, organization } = await inviteForSignup(deps, request.params.invite_id);
      return {
        id: invite.id,
        target_email: invite.targetEmail,
        first_name: invite.firstName,
        organization_name: organization.name,
        level: invite.level,
        expires_at: inviteExpiresAt(invite).toISOString(),
      };
    },
  );

  app.post(
    '/api/signup/:invite_id/',
    {
      config: { scope: PUBLIC },
      schema: {
        tags,
        summary: 'Accept an invite: create the account (token, first_name, password) and join',
        description:
          'The body carries the invite token from the invite email. Logged in (session cookie) as the ' +
          'invited address, the existing account joins instead and no password is needed. A new account ' +
          'is logged in at once (session cookie).',
        params: Params,
        body: SignupBody,
        response: { 201: Joined },
      },
    },
    async (request, reply) => {
      const token = sessionToken(request, SESSION_COOKIE);
      const caller = token ? await resolveSession(deps, token) : undefined;
      const joined = await acceptInvite(deps, request.params.invite_id, request.body, caller);
      if (joined.created) {
        const session = await startSession(deps, joined.user);
        setSessionCookie(request, reply, session.token, session.expiresAt);
      }
      return reply.code(201).send({
        ...toUserBasic(joined.user),
        organization_id: joined.organization.id,
        level: joined.level,
      });
    },
  );
};
