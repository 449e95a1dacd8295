import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { ExportDeps } from '../domain/batch-exports/deps.js';
import {
  createExport,
  getExport,
  listExports,
  updateExport,
  viewExport,
} from '../domain/batch-exports/service.js';
import { deleteExport } from '../domain/batch-exports/state.js';
import { projectAccessOf } from '../server/auth.js';
import { PageQuery, Paginated, pageOf, paginate } from '../server/pagination.js';
import { batchExportActionRoutes } from './batch-export-actions.js';
import { ORGANIZATION_FAMILY, PROJECT_FAMILIES, read, tags, withId, write } from './batch-export-common.js';
import { batchExportRunRoutes } from './batch-export-runs.js';
import type { ApiPlugin } from './context.js';
import { BatchExport, CreateBody, toBatchExport, UpdateBody } from './schemas/batch-exports.js';

/**
 * Project routes are the full resource; the organization route lists and reads exports across the
 * organization's projects and carries pause/unpause and the destination tests (the spec's five).
 */
export const batchExportRoutes: ApiPlugin<{ exports: ExportDeps }> = async (app, { exports: deps }) => {
  for (const family of [...PROJECT_FAMILIES, ORGANIZATION_FAMILY]) {
    const { prefix, params, scopeOf } = family;
    const byId = withId(params);
    app.get(
      prefix,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'Batch exports, newest first',
          params,
          querystring: PageQuery,
          response: { 200: Paginated(BatchExport) },
        },
      },
      async (request) => {
        const page = pageOf(request.query);
        const data = await listExports(deps, scopeOf(request), page);
        return paginate(request, page, { count: data.count, results: data.results.map(toBatchExport) });
      },
    );
    app.get(
      `${prefix}:id/`,
      {
        config: { scope: read },
        schema: { tags, summary: 'Retrieve a batch export', params: byId, response: { 200: BatchExport } },
      },
      async (request) =>
        toBatchExport(await viewExport(deps, await getExport(deps, scopeOf(request), request.params.id))),
    );
    await batchExportActionRoutes(app, deps, family);
  }

  for (const family of PROJECT_FAMILIES) {
    const { prefix, params, scopeOf } = family;
    const byId = withId(params);
    await batchExportRunRoutes(app, deps, family);
    app.post(
      prefix,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Create a batch export',
          params,
          body: CreateBody,
          response: { 201: BatchExport },
        },
      },
      async (request, reply) => {
        const view = await createExport(deps, projectAccessOf(request).team, request.body);
        return reply.code(201).send(toBatchExport(view));
      },
    );
    const update = {
      config: { scope: write },
      schema: {
        tags,
        summary: 'Update a batch export; destination config is merged, so secrets may be left out',
        params: byId,
        body: UpdateBody,
        response: { 200: BatchExport },
      },
    };
    const handler = async (
      request: FastifyRequest<{ Params: { id: string }; Body: Static<typeof UpdateBody> }>,
    ) => toBatchExport(await updateExport(deps, scopeOf(request), request.params.id, request.body));
    app.patch(`${prefix}:id/`, update, handler);
    app.put(`${prefix}:id/`, { ...update, schema: { ...update.schema, body: CreateBody } }, handler);
    app.delete(
      `${prefix}:id/`,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Delete a batch export (its unfinished runs are cancelled)',
          params: byId,
          response: { 204: Type.Null() },
        },
      },
      async (request, reply) => {
        await deleteExport(deps, scopeOf(request), request.params.id);
        return reply.code(204).send(null);
      },
    );
  }
};
