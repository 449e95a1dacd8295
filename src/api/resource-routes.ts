import type {
  FastifyInstance,
  FastifyRequest,
  FastifySchema,
  HTTPMethods,
  RouteHandlerMethod,
} from 'fastify';
import { type Static, type TObject, type TSchema, Type } from 'typebox';
import type { RouteScope } from '../domain/scopes.js';
import { type Page, Paginated, pageOf, paginate } from '../server/pagination.js';
import { abortOnClose } from './abort-on-close.js';
import type { ApiPlugin } from './context.js';
import { ProjectIdParams } from './schemas/common.js';
import { PROJECT_PREFIXES } from './schemas/recordings.js';

type App = Parameters<ApiPlugin>[0];
type Req<P extends TSchema, Q extends TSchema = TObject, B extends TSchema = TSchema> = FastifyRequest<{
  Params: Static<P>;
  Querystring: Static<Q>;
  Body: Static<B>;
}>;
type ProjectParams = typeof ProjectIdParams;

/** What a resource declares: its schemas and scopes, and for each route a summary and a handler. */
export interface ResourceSpec<
  Item extends TSchema,
  Body extends TSchema,
  Params extends TObject,
  ListQuery extends TObject,
  RetrieveQuery extends TObject,
  ListItem extends TSchema,
> {
  /** The collection under a project prefix, e.g. `actions/`; one item is `{path}:id/`. */
  path: string;
  tags: string[];
  read: RouteScope;
  write: RouteScope;
  /** One item as answered, the body of a create or change, the params of an item's path. */
  item: Item;
  body: Body;
  params: Params;
  list: {
    summary: string;
    querystring: ListQuery;
    /** An item as the list shows it, when that is less than `item` (dashboards list without tiles). */
    item?: ListItem;
    handler(
      request: Req<ProjectParams, ListQuery>,
      page: Page,
    ): Promise<{ count: number; results: Static<ListItem>[] }>;
  };
  create: { summary: string; handler(request: Req<ProjectParams, TObject, Body>): Promise<Static<Item>> };
  retrieve: {
    summary: string;
    querystring?: RetrieveQuery;
    /** `signal` aborts when the client goes away first (a calculation for the answer stops). */
    handler(request: Req<Params, RetrieveQuery>, signal: AbortSignal): Promise<Static<Item>>;
  };
  /** PATCH and PUT alike (PostHog's clients send both). */
  change: { summary: string; handler(request: Req<Params, TObject, Body>): Promise<Static<Item>> };
  /** A soft delete: the handler marks the item deleted; the route answers 204. */
  remove: { summary: string; handler(request: Req<Params>): Promise<void> };
}

/**
 * A project resource's routes in the shape of PostHog's model viewsets, under every project prefix:
 * a paginated list, create (201), retrieve, PATCH/PUT, DELETE (204). Only the shape is written here;
 * each resource keeps its own schemas, summaries and scopes, so the OpenAPI document and the route
 * contract are what the routes written out one by one would give.
 */
export function resourceRoutes<
  Item extends TSchema,
  Body extends TSchema,
  Params extends TObject,
  ListQuery extends TObject,
  RetrieveQuery extends TObject = TObject,
  ListItem extends TSchema = Item,
>(app: App, spec: ResourceSpec<Item, Body, Params, ListQuery, RetrieveQuery, ListItem>) {
  const { tags, list, create, retrieve, change, remove } = spec;
  // Registered untyped: the spec's generic schemas are beyond the type provider's inference, and
  // the handlers' signatures above already type requests and answers by those same schemas.
  const routes = app as unknown as FastifyInstance;
  const as = <R>(request: FastifyRequest) => request as unknown as R;
  const route = (
    method: HTTPMethods,
    url: string,
    scope: RouteScope,
    schema: FastifySchema,
    handler: RouteHandlerMethod,
  ) => routes.route({ method, url, config: { scope }, schema, handler });

  for (const prefix of PROJECT_PREFIXES) {
    const base = `${prefix}${spec.path}`;
    const item = `${base}:id/`;
    const { params, item: one, body } = spec;
    route(
      'GET',
      base,
      spec.read,
      {
        tags,
        summary: list.summary,
        params: ProjectIdParams,
        querystring: list.querystring,
        response: { 200: Paginated(list.item ?? one) },
      },
      async (request) => {
        const page = pageOf(request.query as { limit?: number; offset?: number });
        return paginate(request, page, await list.handler(as(request), page));
      },
    );
    route(
      'POST',
      base,
      spec.write,
      { tags, summary: create.summary, params: ProjectIdParams, body, response: { 201: one } },
      async (request, reply) => reply.code(201).send(await create.handler(as(request))),
    );
    route(
      'GET',
      item,
      spec.read,
      {
        tags,
        summary: retrieve.summary,
        params,
        ...(retrieve.querystring ? { querystring: retrieve.querystring } : {}),
        response: { 200: one },
      },
      async (request, reply) => retrieve.handler(as(request), abortOnClose(reply)),
    );
    for (const method of ['PATCH', 'PUT'] as const)
      route(
        method,
        item,
        spec.write,
        { tags, summary: change.summary, params, body, response: { 200: one } },
        async (request) => change.handler(as(request)),
      );
    route(
      'DELETE',
      item,
      spec.write,
      { tags, summary: remove.summary, params, response: { 204: Type.Null() } },
      async (request, reply) => {
        await remove.handler(as(request));
        return reply.code(204).send(null);
      },
    );
  }
}
