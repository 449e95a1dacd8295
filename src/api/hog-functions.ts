import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { functionLogs, functionMetrics, functionMetricTotals } from '../domain/destinations/observability.js';
import {
  changeHogFunction,
  createHogFunction,
  deleteHogFunction,
  getHogFunction,
  invoke,
  listDestinations,
  type Sender,
  viewOf,
} from '../domain/destinations/service.js';
import { TEMPLATES } from '../domain/destinations/templates.js';
import type { LiquidEngine } from '../domain/destinations/templating.js';
import { scope } from '../domain/scopes.js';
import { principalOf, projectAccessOf } from '../server/auth.js';
import { PageQuery, Paginated, pageOf, paginate } from '../server/pagination.js';
import type { HogFunctionRecord } from '../store/meta/hog-functions.js';
import type { ApiPlugin } from './context.js';
import { resourceRoutes } from './resource-routes.js';
import { DateTime, ProjectIdParams } from './schemas/common.js';
import { PROJECT_PREFIXES } from './schemas/recordings.js';

const tags = ['hog_functions'];
const read = scope('hog_function', 'read');
const write = scope('hog_function', 'write');

const Json = Type.Record(Type.String(), Type.Unknown());
const HogFunction = Type.Object({
  id: Type.String(),
  type: Type.String(),
  name: Type.String(),
  description: Type.String(),
  enabled: Type.Boolean(),
  deleted: Type.Boolean(),
  template_id: Type.Union([Type.String(), Type.Null()]),
  hog: Type.String(),
  icon_url: Type.Union([Type.String(), Type.Null()]),
  inputs_schema: Type.Array(Json),
  inputs: Type.Record(Type.String(), Json),
  filters: Json,
  masking: Type.Union([Json, Type.Null()]),
  created_at: DateTime,
  created_by: Type.Union([Type.Object({ id: Type.Integer() }), Type.Null()]),
  updated_at: DateTime,
});

const Body = Type.Object({
  type: Type.Optional(Type.String({ maxLength: 40 })),
  name: Type.Optional(Type.String({ maxLength: 400 })),
  description: Type.Optional(Type.String({ maxLength: 10_000 })),
  enabled: Type.Optional(Type.Boolean()),
  template_id: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
  hog: Type.Optional(Type.String({ maxLength: 100_000 })),
  icon_url: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  inputs_schema: Type.Optional(Type.Array(Json, { maxItems: 100 })),
  inputs: Type.Optional(Type.Union([Type.Record(Type.String(), Json), Type.Null()])),
  filters: Type.Optional(Type.Union([Json, Type.Null()])),
  masking: Type.Optional(Type.Union([Json, Type.Null()])),
});

const IdParams = Type.Object({ ...ProjectIdParams.properties, id: Type.String({ maxLength: 64 }) });
const ListQuery = Type.Object({
  ...PageQuery.properties,
  type: Type.Optional(Type.String({ maxLength: 40 })),
  enabled: Type.Optional(Type.Boolean()),
});

const Template = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  type: Type.String(),
  status: Type.String(),
  free: Type.Boolean(),
  category: Type.Array(Type.String()),
  icon_url: Type.String(),
  code_language: Type.String(),
  hog: Type.String(),
  inputs_schema: Type.Array(Json),
  filters: Type.Null(),
  masking: Type.Null(),
});

const Invocation = Type.Object({
  status: Type.String(),
  logs: Type.Array(Type.Object({ level: Type.String(), timestamp: DateTime, message: Type.String() })),
  request: Type.Union([
    Type.Object({
      url: Type.String(),
      method: Type.String(),
      headers: Type.Record(Type.String(), Type.String()),
      body: Type.Union([Type.String(), Type.Null()]),
    }),
    Type.Null(),
  ]),
});
const InvocationBody = Type.Object({
  globals: Type.Optional(Json),
  mock_async_functions: Type.Optional(Type.Boolean()),
  // The function as a form has it, unsaved (PostHog's `configuration`; the id may then be `new`).
  configuration: Type.Optional(Body),
});

const shape = (record: HogFunctionRecord) => {
  const f = viewOf(record);
  return {
    id: f.id,
    type: f.type,
    name: f.name,
    description: f.description,
    enabled: f.enabled,
    deleted: f.deleted,
    template_id: f.templateId,
    hog: f.hog,
    icon_url: f.iconUrl,
    inputs_schema: f.inputsSchema,
    inputs: f.inputs,
    filters: f.filters,
    masking: f.masking,
    created_at: f.createdAt,
    created_by: f.createdBy === null ? null : { id: f.createdBy },
    updated_at: f.updatedAt,
  };
};

/** Realtime destinations (docs/destinations.md): PostHog's `hog_functions` and their templates. */
export const hogFunctionRoutes: ApiPlugin<{
  send: Sender;
  siteUrl?: string | undefined;
  liquid: LiquidEngine;
}> = async (app, { deps: base, send, siteUrl, liquid }) => {
  const deps = { ...base, liquid };
  resourceRoutes(app, {
    path: 'hog_functions/',
    tags,
    read,
    write,
    item: HogFunction,
    body: Body,
    params: IdParams,
    list: {
      summary: "The project's hog functions (destinations), newest first",
      querystring: ListQuery,
      handler: async (request, page) => {
        const q = request.query as { type?: string; enabled?: boolean };
        const data = await listDestinations(deps, projectAccessOf(request), {
          ...page,
          type: q.type,
          enabled: q.enabled,
        });
        return { count: data.count, results: data.results.map(shape) };
      },
    },
    create: {
      summary: 'Create a destination from a template',
      handler: async (request) =>
        shape(await createHogFunction(deps, projectAccessOf(request), principalOf(request), request.body)),
    },
    retrieve: {
      summary: 'One hog function (secret inputs as {secret: true})',
      handler: async (request) =>
        shape(await getHogFunction(deps, projectAccessOf(request), request.params.id)),
    },
    change: {
      summary: 'Change a hog function; secret inputs left out or sent as {secret: true} are kept',
      handler: async (request) =>
        shape(await changeHogFunction(deps, projectAccessOf(request), request.params.id, request.body)),
    },
    remove: {
      summary: 'Delete a hog function (soft: it stops and disappears)',
      handler: (request) => deleteHogFunction(deps, projectAccessOf(request), request.params.id),
    },
  });

  const templates = TEMPLATES.map((t) => ({
    id: t.id,
    name: t.name,
    description: t.description,
    type: 'destination',
    status: 'stable',
    free: true,
    category: t.category,
    icon_url: t.icon_url,
    code_language: 'hog',
    hog: t.hog,
    inputs_schema: t.inputs_schema as unknown as Array<Record<string, unknown>>,
    filters: null,
    masking: null,
  }));
  for (const prefix of PROJECT_PREFIXES) {
    app.get(
      `${prefix}hog_function_templates/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'The destination templates Burrow ships',
          params: ProjectIdParams,
          querystring: PageQuery,
          response: { 200: Paginated(Template) },
        },
      },
      async (request) => {
        const page = pageOf(request.query);
        return paginate(request, page, {
          count: templates.length,
          results: templates.slice(page.offset, page.offset + page.limit),
        });
      },
    );
    app.post(
      `${prefix}hog_functions/:id/invocations/`,
      {
        config: { scope: write },
        schema: {
          tags,
          summary:
            'Run a destination (or, with `configuration`, a draft of one; id `new` when unsaved) on a sample event: the logs and the request it sends',
          params: IdParams,
          body: InvocationBody,
          response: { 200: Invocation },
        },
      },
      async (request: FastifyRequest<{ Params: { id: string }; Body: Static<typeof InvocationBody> }>) =>
        invoke({ ...deps, send, siteUrl }, projectAccessOf(request), request.params.id, request.body),
    );
    app.get(
      `${prefix}hog_functions/:id/logs/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: "A destination's delivery logs, newest first (the last 1000 lines are kept)",
          params: IdParams,
          querystring: LogsQuery,
          response: { 200: Logs },
        },
      },
      async (request: FastifyRequest<{ Params: { id: string }; Querystring: Static<typeof LogsQuery> }>) =>
        functionLogs(deps, projectAccessOf(request), request.params.id, request.query),
    );
    app.get(
      `${prefix}hog_functions/:id/metrics/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: "A destination's delivery counts per interval (succeeded, failed, filtered, masked, ...)",
          params: IdParams,
          querystring: MetricsQuery,
          response: { 200: Metrics },
        },
      },
      async (request: FastifyRequest<{ Params: { id: string }; Querystring: Static<typeof MetricsQuery> }>) =>
        functionMetrics(deps, projectAccessOf(request), request.params.id, request.query),
    );
    app.get(
      `${prefix}hog_functions/:id/metrics/totals/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: "A destination's delivery counts over the range",
          params: IdParams,
          querystring: MetricsQuery,
          response: { 200: MetricTotals },
        },
      },
      async (request: FastifyRequest<{ Params: { id: string }; Querystring: Static<typeof MetricsQuery> }>) =>
        functionMetricTotals(deps, projectAccessOf(request), request.params.id, request.query),
    );
  }
};

const LogsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
  level: Type.Optional(Type.String({ maxLength: 100 })),
  before: Type.Optional(Type.String({ maxLength: 40 })),
  after: Type.Optional(Type.String({ maxLength: 40 })),
  search: Type.Optional(Type.String({ maxLength: 200 })),
  instance_id: Type.Optional(Type.String({ maxLength: 200 })),
});
const Logs = Type.Object({
  results: Type.Array(
    Type.Object({
      log_source_id: Type.String(),
      instance_id: Type.String(),
      timestamp: DateTime,
      level: Type.String(),
      message: Type.String(),
    }),
  ),
});
const MetricsQuery = Type.Object({
  after: Type.Optional(Type.String({ maxLength: 40 })),
  before: Type.Optional(Type.String({ maxLength: 40 })),
  interval: Type.Optional(Type.Union([Type.Literal('hour'), Type.Literal('day'), Type.Literal('week')])),
  breakdown_by: Type.Optional(Type.Union([Type.Literal('name'), Type.Literal('kind')])),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  kind: Type.Optional(Type.String({ maxLength: 200 })),
});
const Metrics = Type.Object({
  labels: Type.Array(Type.String()),
  series: Type.Array(Type.Object({ name: Type.String(), values: Type.Array(Type.Integer()) })),
});
const MetricTotals = Type.Object({ totals: Type.Record(Type.String(), Type.Integer()) });
