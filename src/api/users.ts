import { Type } from 'typebox';
import { getMe } from '../domain/accounts/users.js';
import { scope } from '../domain/scopes.js';
import { principalOf } from '../server/auth.js';
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

export const userRoutes: ApiPlugin = async (app, { deps }) => {
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
    async (request) => {
      const me = await getMe(deps, principalOf(request));
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
    },
  );
};
