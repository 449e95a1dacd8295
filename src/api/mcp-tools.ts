import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ProjectAccess } from '../domain/access.js';
import { findLiveAction } from '../domain/actions/actions.js';
import { definitionsTaxonomy } from '../domain/mcp-tools/definitions-taxonomy.js';
import { eventsTableTaxonomy, TaxonomyError } from '../domain/mcp-tools/taxonomy.js';
import { MCP_TOOLS, ToolArgsError, type ToolContext, ToolError } from '../domain/mcp-tools/tools.js';
import { grantedScopes, type Principal } from '../domain/principal.js';
import { executeQueryRequest } from '../domain/query/execute.js';
import { missingScope, type ScopeAction, type ScopeObject, scope } from '../domain/scopes.js';
import { ApiError, permissionDenied } from '../errors.js';
import type { QueryRuntime } from '../execution/runtime.js';
import { findTable } from '../hogql/schema/database.js';
import { starFields } from '../hogql/schema/fields.js';
import { principalOf, projectAccessOf } from '../server/auth.js';
import { abortOnClose } from './abort-on-close.js';
import type { ApiPlugin } from './context.js';
import { ProjectIdParams } from './schemas/common.js';

const tags = ['mcp'];
const PREFIXES = ['/api/environments/:project_id/mcp_tools/', '/api/projects/:project_id/mcp_tools/'];

const Body = Type.Object(
  {
    args: Type.Optional(
      Type.Unknown({ description: "The tool's arguments, as PostHog's MCP server sends them" }),
    ),
  },
  { additionalProperties: true },
);

const ToolResponse = Type.Object({
  success: Type.Boolean(),
  content: Type.String(),
  error: Type.Optional(
    Type.Object({
      category: Type.String(),
      retry: Type.String(),
      tool: Type.String(),
      correlation_id: Type.String(),
    }),
  ),
  // A 4xx also carries the usual error fields, so DRF-minded clients read it too.
  type: Type.Optional(Type.String()),
  code: Type.Optional(Type.String()),
  detail: Type.Optional(Type.String()),
  attr: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

const RETRY = {
  never: 'Retrying with the same input will not help.',
  once: 'Retrying once with the same input is safe.',
  adjusted: 'Retrying is safe once you adjust the input.',
} as const;

/** PostHog's failure body: the cause, what a retry would do, and an id to find it in the logs. */
function failure(tool: string, category: string, cause: string, retry: keyof typeof RETRY) {
  const id = randomUUID().replace(/-/g, '');
  return {
    success: false,
    content: `Tool \`${tool}\` failed (${category}): ${cause} ${RETRY[retry]} Correlation ID: ${id}.`,
    error: { category, retry, tool, correlation_id: id },
  };
}

/** A key needs every scope the tool is registered with (PostHog resolves them per tool). */
function requireScopes(principal: Principal, scopes: string[]) {
  const granted = grantedScopes(principal);
  for (const s of scopes) {
    const [object, action] = s.split(':') as [ScopeObject, ScopeAction];
    const missing = missingScope(granted, scope(object, action));
    if (missing) throw permissionDenied(`API key missing required scope '${missing}'`);
  }
}

export const mcpToolRoutes: ApiPlugin<{ query: QueryRuntime }> = async (app, { deps, query }) => {
  const sessionFields = () => {
    const t = findTable('sessions');
    return t ? starFields(t) : [];
  };

  const contextFor = (access: ProjectAccess, signal: AbortSignal): ToolContext => {
    const run = async (hogql: string, values: Record<string, unknown>) => {
      const outcome = await executeQueryRequest(deps, query.service, {
        team: access.team,
        query: { kind: 'HogQLQuery', query: hogql, values },
        mode: 'blocking',
        signal,
      });
      if (outcome.kind !== 'result') throw new ToolError('The query did not return a result');
      const body = outcome.body as unknown as { columns?: string[]; results?: unknown[][] };
      return { columns: body.columns ?? [], results: body.results ?? [] };
    };
    return {
      runHogQL: (hogql) => run(hogql, {}),
      taxonomy: definitionsTaxonomy(
        deps.meta,
        access.team.id,
        eventsTableTaxonomy(async (q, values) => (await run(q, values)).results, sessionFields),
      ),
      async actionEvents(id) {
        const action = await findLiveAction(deps, access.team.id, id);
        if (!action) return undefined;
        const events = action.steps.map((s) => s.event);
        return {
          events: events.every((e): e is string => typeof e === 'string' && e !== '') ? events : null,
        };
      },
    };
  };

  const invoke = async (
    name: string,
    request: FastifyRequest,
    signal: AbortSignal,
  ): Promise<{ status: 200 | 400 | 404; body: object }> => {
    const tool = MCP_TOOLS[name];
    if (!tool)
      return {
        status: 404,
        body: failure(name, 'unknown_tool', `No tool named \`${name}\` is registered.`, 'never'),
      };
    requireScopes(principalOf(request), tool.scopes);
    const access = projectAccessOf(request);
    const args = (request.body as { args?: unknown } | undefined)?.args ?? {};
    try {
      if (typeof args !== 'object' || args === null || Array.isArray(args))
        throw new ToolArgsError('args: Input should be a valid dictionary');
      const content = await tool.run(args as Record<string, unknown>, contextFor(access, signal));
      return { status: 200, body: { success: true, content } };
    } catch (err) {
      if (err instanceof ToolArgsError) {
        const body = failure(
          name,
          'invalid_input',
          `The arguments did not match the tool schema: ${err.message}.`,
          'adjusted',
        );
        return {
          status: 400,
          body: {
            ...body,
            type: 'validation_error',
            code: 'invalid_input',
            detail: err.message,
            attr: 'args',
          },
        };
      }
      if (err instanceof ToolError || err instanceof TaxonomyError)
        return { status: 200, body: failure(name, 'invalid_input', `${err.message}.`, 'adjusted') };
      // Query errors the caller can act on (bad SQL, unknown table, throttled) are tool failures.
      if (err instanceof ApiError && err.status < 500) {
        const transient = err.status === 429;
        return {
          status: 200,
          body: failure(
            name,
            transient ? 'transient' : 'invalid_input',
            `${err.detail}.`,
            transient ? 'once' : 'adjusted',
          ),
        };
      }
      throw err;
    }
  };

  for (const prefix of PREFIXES) {
    for (const [name, tool] of Object.entries(MCP_TOOLS)) {
      const [object, action] = (tool.scopes[0] as string).split(':') as [ScopeObject, ScopeAction];
      app.post(
        `${prefix}${name}/`,
        {
          config: { scope: scope(object, action) },
          schema: {
            tags,
            summary: `Invoke the MCP tool \`${name}\` (scopes: ${tool.scopes.join(', ')})`,
            params: ProjectIdParams,
            body: Body,
            response: { 200: ToolResponse, 400: ToolResponse },
          },
        },
        async (request, reply) => {
          const out = await invoke(name, request, abortOnClose(reply));
          return reply.code(out.status as 200 | 400).send(out.body as never);
        },
      );
    }
    app.post(
      `${prefix}:tool_name/`,
      {
        config: { scope: scope('project', 'read') },
        schema: {
          tags,
          summary: 'Any other MCP tool name: 404 with `{success: false}`',
          params: Type.Object({ ...ProjectIdParams.properties, tool_name: Type.String({ maxLength: 100 }) }),
          body: Type.Optional(Body),
          response: { 404: ToolResponse },
        },
      },
      async (request, reply) => {
        const name = request.params.tool_name.replace(/[^\w-]/g, '').slice(0, 100);
        const out = failure(name, 'unknown_tool', `No tool named \`${name}\` is registered.`, 'never');
        return reply
          .code(404)
          .send({ ...out, type: 'invalid_request', code: 'not_found', detail: out.content, attr: null });
      },
    );
  }
};
