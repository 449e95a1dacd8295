import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { Type } from 'typebox';
import { executeQueryRequest } from '../domain/query/execute.js';
import type { DashboardFilter } from '../domain/query/filters.js';
import { scope } from '../domain/scopes.js';
import type { QueryRuntime } from '../execution/runtime.js';
import { loadParser } from '../hogql/parse.js';
import { projectAccessOf } from '../server/auth.js';
import { abortOnClose } from './abort-on-close.js';
import type { ApiPlugin } from './context.js';
import { draftSqlRoutes } from './query-draft-sql.js';
import { ErrorBody, ProjectIdParams } from './schemas/common.js';
import {
  CancelQuerystring,
  QueryIdParams,
  QueryKindParams,
  QueryRequestBody,
  QueryResponse,
  QueryStatusResponse,
  StatusQuerystring,
} from './schemas/query.js';

const tags = ['query'];
const read = { scope: scope('query', 'read') };
const PREFIXES = ['/api/environments/:project_id/query/', '/api/projects/:project_id/query/'];

type Body = Static<typeof QueryRequestBody>;

export const queryRoutes: ApiPlugin<{ query: QueryRuntime }> = async (app, { deps, query }) => {
  await loadParser();
  const create = async (request: FastifyRequest, reply: FastifyReply, body: Body, kindInPath?: string) => {
    const team = projectAccessOf(request).team;
    return executeQueryRequest(deps, query.service, {
      team,
      query: body.query,
      refresh: body.refresh,
      legacyAsync: body.async,
      clientQueryId: body.client_query_id ?? null,
      filtersOverride: body.filters_override as DashboardFilter | null | undefined,
      variablesOverride: body.variables_override as Record<string, unknown> | null | undefined,
      signal: abortOnClose(reply),
      ...(kindInPath ? { kindInPath } : {}),
    });
  };

  for (const prefix of PREFIXES) {
    app.post(
      prefix,
      {
        config: read,
        schema: {
          tags,
          summary: 'Run a query (HogQL or a structured query object)',
          params: ProjectIdParams,
          body: QueryRequestBody,
          response: { 200: QueryResponse, 202: QueryResponse },
        },
      },
      async (request, reply) => {
        const outcome = await create(request, reply, request.body);
        return reply.code(outcome.httpStatus).send(outcome.body);
      },
    );

    app.post(
      `${prefix}:kind/`,
      {
        config: read,
        schema: {
          tags,
          summary: 'Run a query whose kind is named in the path',
          params: QueryKindParams,
          body: QueryRequestBody,
          response: { 200: QueryResponse, 202: QueryResponse },
        },
      },
      async (request, reply) => {
        const outcome = await create(request, reply, request.body, request.params.kind);
        return reply.code(outcome.httpStatus).send(outcome.body);
      },
    );

    app.get(
      `${prefix}:id/`,
      {
        config: read,
        schema: {
          tags,
          summary: 'Status of a background query (202 while it runs)',
          params: QueryIdParams,
          querystring: StatusQuerystring,
          // PostHog answers a failed query's status with 400 (exposed error) or 500, body unchanged.
          response: {
            200: QueryStatusResponse,
            202: QueryStatusResponse,
            400: Type.Union([QueryStatusResponse, ErrorBody], {
              description: 'The query failed with a message (or a bad request)',
            }),
            500: Type.Union([QueryStatusResponse, ErrorBody], {
              description: 'The query failed without a message',
            }),
          },
        },
      },
      async (request, reply) => {
        const team = projectAccessOf(request).team;
        const showProgress = request.query.show_progress ?? request.query.showProgress ?? false;
        const answer = await query.service.getStatus(team.id, request.params.id, { showProgress });
        return reply.code(answer.httpStatus).send(answer.body);
      },
    );

    app.delete(
      `${prefix}:id/`,
      {
        config: read,
        schema: {
          tags,
          summary: 'Cancel a query (204); `dequeue_only` only removes it if it has not started',
          params: QueryIdParams,
          querystring: CancelQuerystring,
          response: { 204: Type.Null() },
        },
      },
      async (request, reply) => {
        const team = projectAccessOf(request).team;
        await query.service.cancelQuery(team.id, request.params.id, {
          dequeueOnly: request.query.dequeue_only ?? false,
        });
        return reply.code(204).send(null);
      },
    );

    app.post(
      `${prefix}check_auth_for_async/`,
      {
        config: read,
        schema: {
          tags,
          summary: 'Check that the caller may run queries in this project',
          params: ProjectIdParams,
          response: { 200: Type.Object({ user: Type.Literal('ok') }) },
        },
      },
      async () => ({ user: 'ok' as const }),
    );
  }
  await app.register(draftSqlRoutes, { deps, prefixes: PREFIXES });
};
