import { Type } from 'typebox';
import {
  listOrganizationMembers,
  MEMBER_ORDERS,
  type MemberOrder,
  removeMember,
  updateMember,
} from '../domain/organizations/members.js';
import { scope } from '../domain/scopes.js';
import { organizationAccessOf } from '../server/auth.js';
import { PageQuery, Paginated, pageOf, paginate } from '../server/pagination.js';
import type { ApiPlugin } from './context.js';
import { OrganizationIdParams } from './schemas/common.js';
import { Member, toMember } from './schemas/members.js';

const tags = ['members'];
const read = scope('organization_member', 'read');
const write = scope('organization_member', 'write');
const UserParams = Type.Object({
  ...OrganizationIdParams.properties,
  user__uuid: Type.String({ description: "A member's user uuid, or `@me`" }),
});
const ORDERS: MemberOrder[] = MEMBER_ORDERS.flatMap((o) => [o, `-${o}` as const]);
const ListQuery = Type.Object({
  ...PageQuery.properties,
  email: Type.Optional(Type.String({ description: 'Exact email address' })),
  updated_after: Type.Optional(Type.String({ format: 'date-time' })),
  order: Type.Optional(
    Type.Unsafe<MemberOrder>({ type: 'string', enum: ORDERS, description: 'Default -joined_at' }),
  ),
});
const PatchBody = Type.Object(
  { level: Type.Optional(Type.Integer({ description: '1 member, 8 admin, 15 owner' })) },
  { additionalProperties: false },
);

/**
 * Members and their levels. Removing a member answers 204, as PostHog does; their keys keep working
 * elsewhere but lose this organization at once.
 */
export const memberRoutes: ApiPlugin = async (app, { deps, authenticator }) => {
  const base = '/api/organizations/:organization_id/members/';

  app.get(
    base,
    {
      config: { scope: read },
      schema: {
        tags,
        summary: 'Active members, newest first',
        params: OrganizationIdParams,
        querystring: ListQuery,
        response: { 200: Paginated(Member) },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const data = await listOrganizationMembers(deps, organizationAccessOf(request), request.query, page);
      return paginate(request, page, { count: data.count, results: data.results.map(toMember) });
    },
  );

  app.patch(
    `${base}:user__uuid/`,
    {
      config: { scope: write },
      schema: {
        tags,
        summary: "Change a member's level",
        description:
          'Not your own; owner only from an owner; otherwise at most your level, on members at or below it.',
        params: UserParams,
        body: PatchBody,
        response: { 200: Member },
      },
    },
    async (request) =>
      toMember(
        await updateMember(deps, organizationAccessOf(request), request.params.user__uuid, request.body),
      ),
  );

  app.delete(
    `${base}:user__uuid/`,
    {
      config: { scope: write },
      schema: {
        tags,
        summary: 'Remove a member, or leave (`@me`); owners must be demoted first',
        params: UserParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const removed = await removeMember(deps, organizationAccessOf(request), request.params.user__uuid);
      // Cached principals carry the user's current organization, which may just have moved.
      authenticator.invalidate({ userId: removed.userId });
      return reply.code(204).send(null);
    },
  );
};
