import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { TxtLookup } from '../domain/organizations/org-domain-verify.js';
import { verifyDomain } from '../domain/organizations/org-domain-verify.js';
import {
  createDomain,
  deleteDomain,
  getDomain,
  listOrganizationDomains,
  requireAdmin,
  updateDomain,
} from '../domain/organizations/org-domains.js';
import { scope } from '../domain/scopes.js';
import { organizationAccessOf } from '../server/auth.js';
import { PageQuery, Paginated, pageOf, paginate } from '../server/pagination.js';
import type { ApiPlugin } from './context.js';
import { ErrorBody, OrganizationIdParams } from './schemas/common.js';
import { Domain, DomainCreate, DomainInput, toDomain } from './schemas/domains.js';

const tags = ['domains'];
const read = scope('organization', 'read');
const write = scope('organization', 'write');
const IdParams = Type.Object({ ...OrganizationIdParams.properties, id: Type.String() });
const VerifyBody = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Ignored (clients send the domain fields here)',
});

/** Organization domains; reads for any member, writes (and verify) for admins. */
export const domainRoutes: ApiPlugin<{ lookupTxt: TxtLookup }> = async (app, { deps, lookupTxt }) => {
  const base = '/api/organizations/:organization_id/domains/';
  // Permission before validation, as in PostHog: a member learns nothing from a bad body.
  const adminOnly = async (request: FastifyRequest) => requireAdmin(organizationAccessOf(request));

  app.get(
    base,
    {
      config: { scope: read },
      schema: {
        tags,
        summary: "The organization's domains, by name",
        params: OrganizationIdParams,
        querystring: PageQuery,
        response: { 200: Paginated(Domain) },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const data = await listOrganizationDomains(deps, organizationAccessOf(request), page);
      return paginate(request, page, { count: data.count, results: data.results.map(toDomain) });
    },
  );

  app.post(
    base,
    {
      config: { scope: write },
      preValidation: adminOnly,
      schema: {
        tags,
        summary: 'Add a domain (admin); it starts unverified with a fresh challenge',
        params: OrganizationIdParams,
        body: DomainCreate,
        response: { 201: Domain },
      },
    },
    async (request, reply) =>
      reply.code(201).send(toDomain(await createDomain(deps, organizationAccessOf(request), request.body))),
  );

  app.get(
    `${base}:id/`,
    {
      config: { scope: read },
      schema: { tags, summary: 'Retrieve a domain', params: IdParams, response: { 200: Domain } },
    },
    async (request) => toDomain(await getDomain(deps, organizationAccessOf(request), request.params.id)),
  );

  app.patch(
    `${base}:id/`,
    {
      config: { scope: write },
      preValidation: adminOnly,
      schema: {
        tags,
        summary: 'Update JIT provisioning, SSO enforcement or SAML settings (admin)',
        description: 'JIT provisioning and SSO enforcement need a verified domain; `domain` never changes.',
        params: IdParams,
        body: DomainInput,
        response: { 200: Domain },
      },
    },
    async (request) =>
      toDomain(await updateDomain(deps, organizationAccessOf(request), request.params.id, request.body)),
  );

  app.delete(
    `${base}:id/`,
    {
      config: { scope: write },
      preValidation: adminOnly,
      schema: { tags, summary: 'Delete a domain (admin)', params: IdParams, response: { 204: Type.Null() } },
    },
    async (request, reply) => {
      await deleteDomain(deps, organizationAccessOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${base}:id/verify/`,
    {
      config: { scope: write },
      preValidation: adminOnly,
      schema: {
        tags,
        summary: 'Check the TXT record `_posthog-challenge.<domain>` against the challenge (admin)',
        description:
          'Answers 200 with the domain either way: `is_verified` says whether the record matched. ' +
          'A body (domain fields) is accepted and ignored. 503 when the DNS server cannot be reached.',
        params: IdParams,
        body: VerifyBody,
        response: { 200: Domain, 503: { ...ErrorBody, description: 'The DNS server did not answer' } },
      },
    },
    async (request) =>
      toDomain(await verifyDomain(deps, organizationAccessOf(request), request.params.id, lookupTxt)),
  );
};
