import { Type } from 'typebox';
import {
  createOrganization,
  listOrganizations,
  organizationProjects,
  updateOrganization,
} from '../domain/organizations/organizations.js';
import { scope } from '../domain/scopes.js';
import { organizationAccessOf, principalOf } from '../server/auth.js';
import { PageQuery, Paginated, pageOf, paginate } from '../server/pagination.js';
import { REJECT_UNKNOWN_FIELDS } from '../server/validation.js';
import type { ApiPlugin } from './context.js';
import { OrganizationIdParams } from './schemas/common.js';
import { Organization, OrganizationInput, toOrganization } from './schemas/organizations.js';

const tags = ['organizations'];
const CreateBody = Type.Object(
  { ...OrganizationInput.properties, name: Type.String({ maxLength: 64 }) },
  { additionalProperties: false, ...REJECT_UNKNOWN_FIELDS },
);

export const organizationRoutes: ApiPlugin = async (app, { deps, authenticator }) => {
  const render = async (org: Parameters<typeof toOrganization>[0], level: number | null) =>
    toOrganization(org, level, await organizationProjects(deps, org.id));

  app.get(
    '/api/organizations/',
    {
      config: { scope: scope('organization', 'read') },
      schema: {
        tags,
        summary: 'Organizations the caller belongs to',
        querystring: PageQuery,
        response: { 200: Paginated(Organization) },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const data = await listOrganizations(deps, principalOf(request), page);
      const results = await Promise.all(data.results.map((o) => render(o, o.membershipLevel)));
      return paginate(request, page, { count: data.count, results });
    },
  );

  app.post(
    '/api/organizations/',
    {
      config: { scope: scope('organization', 'write') },
      schema: {
        tags,
        summary: 'Create an organization (the caller becomes owner; a first project is made)',
        body: CreateBody,
        response: { 201: Organization },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const org = await createOrganization(deps, principal, request.body);
      authenticator.invalidate({ userId: principal.user.id });
      return reply.code(201).send(await render(org, org.membershipLevel));
    },
  );

  app.get(
    '/api/organizations/:organization_id/',
    {
      config: { scope: scope('organization', 'read') },
      schema: {
        tags,
        summary: 'Retrieve an organization',
        params: OrganizationIdParams,
        response: { 200: Organization },
      },
    },
    async (request) => {
      const access = organizationAccessOf(request);
      return render(access.organization, access.membership.level);
    },
  );

  app.patch(
    '/api/organizations/:organization_id/',
    {
      config: { scope: scope('organization', 'write') },
      schema: {
        tags,
        summary: 'Update an organization (admin)',
        params: OrganizationIdParams,
        body: OrganizationInput,
        response: { 200: Organization },
      },
    },
    async (request) => {
      const access = organizationAccessOf(request);
      const org = await updateOrganization(deps, access, request.body);
      return render(org, access.membership.level);
    },
  );
};
