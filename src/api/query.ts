import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { Type } from 'typebox';
import { resolveActions } from '../domain/actions/resolve.js';
import { ApiError } from '../domain/errors.js';
import { queryError } from '../domain/query/errors.js';
import {
  applyDashboardFilters,
  applyVariablesOverride,
  type DashboardFilter,
} from '../domain/query/filters.js';
import { nodePath, type QueryNode, unwrapQuery } from '../domain/query/kinds.js';
import { runnableKinds, runnerFor } from '../domain/query/run.js';
import { scope } from '../domain/scopes.js';
import { loadParser } from '../hogql/parse.js';
import type { AnyProperties } from '../hogql/property-filters.js';
import type { QueryRuntime } from '../query/runtime.js';
import { projectAccessOf } from '../server/auth.js';
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

/** Applies the request's overrides to the (unwrapped) node, as PostHog does before running it. */
function prepare(body: Body, unwrapped: QueryNode): QueryNode {
  const node = unwrapped;
  const override = body.filters_override as DashboardFilter | null | undefined;
  if (override && (node.kind === 'EventsQuery' || node.kind === 'SessionsQuery')) {
    // Dashboard filters narrow list queries the way PostHog applies them: dates and properties.
    if (override.date_from) node.after = override.date_from;
    if (override.date_to) node.before = override.date_to;
    if (override.properties?.length) {
      node.properties = [...(Array.isArray(node.properties) ? node.properties : []), ...override.properties];
    }
  }
  if (node.kind === 'HogQLQuery') {
    const filters = applyDashboardFilters(
      node.filters as never,
      body.filters_override as DashboardFilter | null,
    );
    if (filters) node.filters = filters;
    const variables = applyVariablesOverride(
      node.variables as never,
      body.variables_override as Record<string, unknown> | null,
    );
    if (variables) node.variables = variables;
  }
  return runnerFor(node.kind).check(node);
}

function usesTestAccountFilters(node: QueryNode): boolean {
  return JSON.stringify(node).includes('"filterTestAccounts":true');
}

export const queryRoutes: ApiPlugin<{ query: QueryRuntime }> = async (app, { deps, query }) => {
  await loadParser();
  const create = async (request: FastifyRequest, body: Body, kindInPath?: string) => {
    const access = projectAccessOf(request);
    const team = access.team;
    if (kindInPath && kindInPath !== (body.query as { kind?: string }).kind) {
      throw new ApiError(
        400,
        'validation_error',
        'invalid_input',
        `Query kind mismatch: path kind "${kindInPath}" does not match body kind "${String((body.query as { kind?: unknown }).kind)}".`,
      );
    }
    // Actions are read before the node is checked, so their definitions are part of the cache key.
    const path = nodePath(body.query);
    let node: QueryNode;
    try {
      node = prepare(body, await resolveActions(deps, team.id, unwrapQuery(body.query, runnableKinds())));
    } catch (err) {
      throw queryError(err, path);
    }
    const runner = runnerFor(node.kind);
    const abort = new AbortController();
    request.raw.once('close', () => {
      if (request.raw.destroyed && !request.raw.complete) abort.abort();
    });
    const outcome = await query.service.executeQuery({
      team: { id: team.id, timezone: team.timezone },
      query: node,
      refresh: body.refresh,
      legacyAsync: body.async,
      clientQueryId: body.client_query_id ?? null,
      modifiers: node.modifiers,
      cacheKeyExtra: {
        runner: node.kind,
        week_start_day: team.weekStartDay ?? 0,
        version: 1,
        // The project's test-account filters are part of the answer when the query applies them.
        ...(usesTestAccountFilters(node) ? { test_account_filters: team.testAccountFilters ?? null } : {}),
      },
      staleness: runner.hints?.(node, { timezone: team.timezone, now: deps.now() }) ?? runner.staleness,
      signal: abort.signal,
      run: async ({ signal, marker }) => {
        try {
          return await runner.run(node, {
            teamId: team.id,
            timezone: team.timezone,
            weekStartDay: team.weekStartDay === 1 ? 1 : 0,
            events: deps.events,
            testAccountFilters: team.testAccountFilters as AnyProperties,
            now: deps.now(),
            async: false,
            marker,
            signal,
          });
        } catch (err) {
          throw queryError(err, path);
        }
      },
    });
    return outcome;
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
        const outcome = await create(request, request.body);
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
        const outcome = await create(request, request.body, request.params.kind);
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
