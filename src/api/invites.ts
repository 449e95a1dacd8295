import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  createInvites,
  deleteInvite,
  listOrganizationInvites,
  MAX_BULK_INVITES,
} from '../domain/organizations/invites.js';
import type { Mailer } from '../domain/organizations/mail.js';
import { scope } from '../domain/scopes.js';
import { validationError } from '../errors.js';
import { organizationAccessOf, principalOf } from '../server/auth.js';
import { PageQuery, Paginated, pageOf, paginate } from '../server/pagination.js';
import type { ApiPlugin } from './context.js';
import { OrganizationIdParams } from './schemas/common.js';
import { Invite, InviteInput, toInvite } from './schemas/invites.js';

const tags = ['invites'];
const read = scope('organization_member', 'read');
const write = scope('organization_member', 'write');
const IdParams = Type.Object({ ...OrganizationIdParams.properties, id: Type.String() });

/**
 * The bulk body is an array of invites; a single object counts as a list of one. Shape and size
 * are checked before the items are validated, so the messages are PostHog's.
 */
async function bulkBody(request: FastifyRequest) {
  const body = request.body;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) request.body = [body];
  else if (!Array.isArray(body)) {
    throw validationError('This endpoint needs an array of data for bulk invite creation.');
  }
  if ((request.body as unknown[]).length > MAX_BULK_INVITES) {
    throw validationError(
      `A maximum of ${MAX_BULK_INVITES} invites can be sent in a single request.`,
      null,
      'max_length',
    );
  }
}

export const inviteRoutes: ApiPlugin<{ mailer: Mailer | null; siteUrl: string | undefined }> = async (
  app,
  { deps, mailer, siteUrl },
) => {
  const base = '/api/organizations/:organization_id/invites/';
  const delivery = (request: FastifyRequest) => ({
    mailer,
    baseUrl: siteUrl ?? `${request.protocol}://${request.host}`,
  });

  app.get(
    base,
    {
      config: { scope: read },
      schema: {
        tags,
        summary: 'Pending invites, newest first (expired ones included, flagged `is_expired`)',
        params: OrganizationIdParams,
        querystring: PageQuery,
        response: { 200: Paginated(Invite) },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const data = await listOrganizationInvites(deps, organizationAccessOf(request), page);
      return paginate(request, page, { count: data.count, results: data.results.map(toInvite) });
    },
  );

  app.post(
    base,
    {
      config: { scope: write },
      schema: {
        tags,
        summary: 'Invite someone by email (replaces any older invite for that address)',
        params: OrganizationIdParams,
        body: InviteInput,
        response: { 201: Invite },
      },
    },
    async (request, reply) => {
      const [invite] = await createInvites(
        deps,
        organizationAccessOf(request),
        principalOf(request),
        [request.body],
        { ...delivery(request), bulk: false },
      );
      return reply.code(201).send(toInvite(invite!));
    },
  );

  app.post(
    `${base}bulk/`,
    {
      config: { scope: write },
      preValidation: bulkBody,
      schema: {
        tags,
        summary: `Up to ${MAX_BULK_INVITES} invites at once, all or nothing`,
        description: "An item's field error names it: `attr` is `<index>__<field>`.",
        params: OrganizationIdParams,
        body: Type.Array(InviteInput),
        response: { 201: Type.Array(Invite) },
      },
    },
    async (request, reply) => {
      const invites = await createInvites(
        deps,
        organizationAccessOf(request),
        principalOf(request),
        request.body,
        { ...delivery(request), bulk: true },
      );
      return reply.code(201).send(invites.map(toInvite));
    },
  );

  app.delete(
    `${base}:id/`,
    {
      config: { scope: write },
      schema: { tags, summary: 'Withdraw an invite', params: IdParams, response: { 204: Type.Null() } },
    },
    async (request, reply) => {
      await deleteInvite(deps, organizationAccessOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
};
