import { Type } from 'typebox';
import { SESSION_COOKIE } from '../domain/accounts/login-sessions.js';
import { getMe, updateMe } from '../domain/accounts/users.js';
import { scope } from '../domain/scopes.js';
import { principalOf, sessionToken } from '../server/auth.js';
import type { ApiPlugin } from './context.js';
import { DateTime, Nullable, NullableDateTime, toUserBasic, UserBasic, Uuid } from './schemas/common.js';
import { Team, toTeam } from './schemas/teams.js';

const OrganizationBasic = Type.Object({
  id: Uuid,
  name: Type.String(),
  slug: Type.String(),
  membership_level: Nullable(Type.Integer()),
  members_can_use_personal_api_keys: Type.Boolean(),
});

const Me = Type.Object({
  ...UserBasic.properties,
  date_joined: DateTime,
  last_login: NullableDateTime,
  has_password: Type.Boolean(),
  is_staff: Type.Boolean(),
  team: Nullable(Team),
  organization: Nullable(OrganizationBasic),
  organizations: Type.Array(OrganizationBasic),
});

type OrgLike = {
  id: string;
  name: string;
  slug: string;
  membershipLevel: number | null;
  membersCanUsePersonalApiKeys: boolean;
};

const toOrganizationBasic = (o: OrgLike) => ({
  id: o.id,
  name: o.name,
  slug: o.slug,
  membership_level: o.membershipLevel,
  members_can_use_personal_api_keys: o.membersCanUsePersonalApiKeys,
});

const MePatch = Type.Object(
  {
    first_name: Type.Optional(Type.String({ maxLength: 150 })),
    last_name: Type.Optional(Type.String({ maxLength: 150 })),
    password: Type.Optional(Type.String({ maxLength: 1024 })),
    current_password: Type.Optional(Type.String({ maxLength: 1024 })),
    set_current_organization: Type.Optional(
      Type.String({ maxLength: 100, description: 'Make this organization (and its first project) current' }),
    ),
    set_current_team: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2_147_483_647,
        description: 'Make this project (and its organization) current',
      }),
    ),
  },
  { additionalProperties: false },
);

export const userRoutes: ApiPlugin = async (app, { deps, authenticator }) => {
  const me = async (principal: ReturnType<typeof principalOf>) => {
    const me = await getMe(deps, principal);
    return {
      ...toUserBasic(me.user),
      date_joined: me.user.createdAt,
      last_login: me.user.lastLogin,
      has_password: me.user.passwordHash !== null,
      is_staff: false,
      team: me.team ? toTeam(me.team) : null,
      organization: me.organization ? toOrganizationBasic(me.organization) : null,
      organizations: me.organizations.map(toOrganizationBasic),
    };
  };

  app.get(
    '/api/users/@me/',
    {
      config: { scope: scope('user', 'read') },
      schema: {
        tags: ['users'],
        summary: 'The calling user, their current organization and project',
        response: { 200: Me },
      },
    },
    async (request) => me(principalOf(request)),
  );

  app.patch(
    '/api/users/@me/',
    {
      config: { scope: scope('user', 'write') },
      schema: {
        tags: ['users'],
        summary: 'Update your name or password, or switch the current organization or project',
        description:
          'A new `password` needs `current_password` when the account has one (at least 8 characters). ' +
          "Changing it ends the user's other login sessions. `set_current_organization` / " +
          '`set_current_team` switch what `@current` names: 400 for one you are not a member of, 403 ' +
          "outside the key's restriction.",
        body: MePatch,
        response: { 200: Me },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const session = principal.key ? undefined : sessionToken(request, SESSION_COOKIE);
      const updated = await updateMe(deps, principal, request.body, session);
      // Cached principals carry the user's current organization and project.
      if (request.body.set_current_organization !== undefined || request.body.set_current_team !== undefined)
        authenticator.invalidate({ userId: principal.user.id });
      return me(updated);
    },
  );
};
