import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import {
  changeRule,
  createRule,
  getRuleView,
  listRuleViews,
  type RuleView,
  removeRule,
  reorder,
} from '../domain/error-tracking/rules.js';
import { scope } from '../domain/scopes.js';
import { projectAccessOf } from '../server/auth.js';
import { PageQuery, Paginated, pageOf, paginate } from '../server/pagination.js';
import type { IssueAssignee } from '../store/meta/error-tracking.js';
import type { RuleKind } from '../store/meta/error-tracking-rules.js';
import type { ApiPlugin } from './context.js';
import { DateTime, Nullable, ProjectIdParams } from './schemas/common.js';
import { PROJECT_PREFIXES } from './schemas/recordings.js';

const tags = ['error_tracking'];
const read = scope('error_tracking', 'read');
const write = scope('error_tracking', 'write');

const Assignee = Type.Object({
  type: Type.String({ maxLength: 16, description: '`user` or `role`' }),
  id: Type.Union([Type.Integer(), Type.String({ maxLength: 64 })]),
});
const Filters = Type.Unknown({
  description: "PostHog's property group: `{type: 'AND' | 'OR', values: [property filter | group]}`",
});

const Common = {
  id: Type.String(),
  filters: Type.Unknown(),
  order_key: Type.Integer(),
  disabled_data: Type.Unknown(),
  created_at: DateTime,
  updated_at: DateTime,
};
const GroupingRule = Type.Object({
  ...Common,
  assignee: Nullable(Assignee),
  description: Nullable(Type.String()),
  issue: Nullable(Type.Object({ id: Type.String(), name: Nullable(Type.String()) })),
});
const SuppressionRule = Type.Object({
  ...Common,
  matched_count: Type.Integer({ description: 'Exceptions dropped by this rule so far (Burrow)' }),
});

const GroupingBody = Type.Object({
  filters: Type.Optional(Filters),
  assignee: Type.Optional(Nullable(Assignee)),
  description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
});
const SuppressionBody = Type.Object({ filters: Type.Optional(Filters) });
const ReorderBody = Type.Object({
  orders: Type.Record(Type.String({ maxLength: 64 }), Type.Integer()),
});
const IdParams = Type.Object({ ...ProjectIdParams.properties, id: Type.String({ maxLength: 64 }) });

const shapeCommon = (r: RuleView) => ({
  id: r.id,
  filters: r.filters,
  order_key: r.orderKey,
  disabled_data: r.disabledData,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});
const shapeGrouping = (r: RuleView) => ({
  ...shapeCommon(r),
  assignee: r.assignee,
  description: r.description,
  issue: r.issue,
});
const shapeSuppression = (r: RuleView) => ({ ...shapeCommon(r), matched_count: r.matchedCount });

type RuleBody = { filters?: unknown; assignee?: IssueAssignee | null; description?: string | null };
type IdRequest<B = unknown> = FastifyRequest<{ Params: Static<typeof IdParams>; Body: B }>;

/**
 * PostHog's `error_tracking/grouping_rules` and `error_tracking/suppression_rules` viewsets
 * (docs/error-tracking.md): rules applied at capture, in `order_key` order.
 */
export const errorTrackingRuleRoutes: ApiPlugin = async (app, { deps }) => {
  const routes = app as unknown as FastifyInstance;
  const kinds: {
    kind: RuleKind;
    path: string;
    schema: TSchema;
    body: TSchema;
    shape: (r: RuleView) => object;
  }[] = [
    {
      kind: 'grouping',
      path: 'grouping_rules',
      schema: GroupingRule,
      body: GroupingBody,
      shape: shapeGrouping,
    },
    {
      kind: 'suppression',
      path: 'suppression_rules',
      schema: SuppressionRule,
      body: SuppressionBody,
      shape: shapeSuppression,
    },
  ];
  for (const prefix of PROJECT_PREFIXES) {
    for (const { kind, path, schema, body, shape } of kinds) {
      const base = `${prefix}error_tracking/${path}/`;
      if (kind === 'grouping') {
        // PostHog's grouping rules are not paginated: `{results}`.
        routes.get(
          base,
          {
            config: { scope: read },
            schema: {
              tags,
              summary: "The project's grouping rules, in the order they apply",
              params: ProjectIdParams,
              response: { 200: Type.Object({ results: Type.Array(schema) }) },
            },
          },
          async (request: FastifyRequest) => ({
            results: (await listRuleViews(deps, projectAccessOf(request), kind)).map(shape),
          }),
        );
      } else {
        routes.get(
          base,
          {
            config: { scope: read },
            schema: {
              tags,
              summary: "The project's suppression rules, in the order they apply",
              params: ProjectIdParams,
              querystring: PageQuery,
              response: { 200: Paginated(schema) },
            },
          },
          async (request: FastifyRequest<{ Querystring: Static<typeof PageQuery> }>) => {
            const page = pageOf(request.query);
            const all = await listRuleViews(deps, projectAccessOf(request), kind);
            return paginate(request, page, {
              count: all.length,
              results: all.slice(page.offset, page.offset + page.limit).map(shape),
            });
          },
        );
      }
      routes.post(
        base,
        {
          config: { scope: write },
          schema: {
            tags,
            summary: `Create a ${kind} rule`,
            params: ProjectIdParams,
            body,
            response: { 201: schema },
          },
        },
        async (request: FastifyRequest<{ Body: RuleBody }>, reply: FastifyReply) =>
          reply
            .code(201)
            .send(shape(await createRule(deps, projectAccessOf(request), kind, request.body ?? {}))),
      );
      routes.patch(
        `${base}reorder/`,
        {
          config: { scope: write },
          schema: {
            tags,
            summary: 'Set the order rules apply in (`orders`: rule id → order key)',
            params: ProjectIdParams,
            body: ReorderBody,
            response: { 204: Type.Null() },
          },
        },
        async (request: FastifyRequest<{ Body: Static<typeof ReorderBody> }>, reply: FastifyReply) => {
          await reorder(deps, projectAccessOf(request), kind, request.body.orders);
          return reply.code(204).send();
        },
      );
      routes.get(
        `${base}:id/`,
        {
          config: { scope: read },
          schema: { tags, summary: `One ${kind} rule`, params: IdParams, response: { 200: schema } },
        },
        async (request: IdRequest) =>
          shape(await getRuleView(deps, projectAccessOf(request), kind, request.params.id)),
      );
      for (const method of ['PATCH', 'PUT'] as const) {
        routes.route({
          method,
          url: `${base}:id/`,
          config: { scope: write },
          schema: {
            tags,
            summary: `Change a ${kind} rule (absent fields are kept)`,
            params: IdParams,
            body,
            response: { 204: Type.Null() },
          },
          handler: async (request: IdRequest<RuleBody>, reply: FastifyReply) => {
            await changeRule(deps, projectAccessOf(request), kind, request.params.id, request.body ?? {});
            return reply.code(204).send();
          },
        });
      }
      routes.delete(
        `${base}:id/`,
        {
          config: { scope: write },
          schema: {
            tags,
            summary: `Delete a ${kind} rule`,
            params: IdParams,
            response: { 204: Type.Null() },
          },
        },
        async (request: IdRequest, reply: FastifyReply) => {
          await removeRule(deps, projectAccessOf(request), kind, request.params.id);
          return reply.code(204).send();
        },
      );
    }
  }
};
