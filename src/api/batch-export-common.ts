import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ExportScope } from '../domain/batch-exports/service.js';
import { scope } from '../domain/scopes.js';
import { organizationAccessOf, projectAccessOf } from '../server/auth.js';
import { OrganizationIdParams, ProjectIdParams } from './schemas/common.js';

export const tags = ['batch_exports'];
export const read = scope('batch_export', 'read');
export const write = scope('batch_export', 'write');

/** A path family and how a request on it names the exports it may reach. */
export interface Family {
  prefix: string;
  params: typeof ProjectIdParams | typeof OrganizationIdParams;
  scopeOf(request: FastifyRequest): ExportScope;
}

export const withId = <T extends Family['params']>(params: T) =>
  Type.Object({ ...params.properties, id: Type.String({ maxLength: 200 }) });

export const PROJECT_FAMILIES: Family[] = ['projects', 'environments'].map((p) => ({
  prefix: `/api/${p}/:project_id/batch_exports/`,
  params: ProjectIdParams,
  scopeOf: (request) => ({ teamId: projectAccessOf(request).team.id }),
}));

export const ORGANIZATION_FAMILY: Family = {
  prefix: '/api/organizations/:organization_id/batch_exports/',
  params: OrganizationIdParams,
  scopeOf: (request) => ({ organizationId: organizationAccessOf(request).organization.id }),
};
