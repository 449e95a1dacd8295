import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import {
  changeIssue,
  getIssueView,
  type IssueView,
  listIssueViews,
  MAX_ISSUES_PER_CALL,
  mergeInto,
  splitFingerprints,
} from '../domain/error-tracking/issues.js';
import { scope } from '../domain/scopes.js';
import { validationError } from '../errors.js';
import { projectAccessOf } from '../server/auth.js';
import { PageQuery, Paginated, pageOf, paginate } from '../server/pagination.js';
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

const Issue = Type.Object({
  id: Type.String(),
  status: Type.String(),
  name: Nullable(Type.String()),
  description: Nullable(Type.String()),
  first_seen: DateTime,
  assignee: Nullable(Assignee),
  external_issues: Type.Array(Type.Unknown()),
  cohort: Type.Null(),
  fingerprints: Type.Array(Type.String()),
});

const IssueBody = Type.Object(
  {
    status: Type.Optional(Type.String({ maxLength: 32 })),
    name: Type.Optional(Type.String({ maxLength: 1000 })),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    assignee: Type.Optional(Nullable(Assignee)),
  },
  { additionalProperties: false },
);

const ListQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(Type.String({ maxLength: 32, description: 'An issue status, or `all`' })),
  assignee_user: Type.Optional(Type.Integer({ minimum: 1, description: 'Issues assigned to this user id' })),
  assignee_role: Type.Optional(
    Type.String({ maxLength: 64, description: 'Issues assigned to this role id' }),
  ),
  search: Type.Optional(Type.String({ maxLength: 255 })),
  date_from: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or after' })),
  date_to: Type.Optional(Type.String({ format: 'date-time', description: 'Created before' })),
});

const IdParams = Type.Object({ ...ProjectIdParams.properties, id: Type.String({ maxLength: 64 }) });
const MergeBody = Type.Object(
  { ids: Type.Array(Type.String({ maxLength: 64 }), { maxItems: MAX_ISSUES_PER_CALL }) },
  { additionalProperties: false },
);
const SplitItem = Type.Union([
  Type.String({ maxLength: 1000 }),
  Type.Object({
    fingerprint: Type.String({ maxLength: 1000 }),
    name: Type.Optional(Type.String({ maxLength: 1000 })),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
  }),
]);
const SplitBody = Type.Object(
  { fingerprints: Type.Array(SplitItem, { maxItems: MAX_ISSUES_PER_CALL }) },
  { additionalProperties: false },
);
const AssignBody = Type.Object({ assignee: Nullable(Assignee) }, { additionalProperties: false });

export const shapeIssue = (i: IssueView) => ({
  id: i.id,
  status: i.status,
  name: i.name,
  description: i.description,
  first_seen: i.firstSeen,
  assignee: i.assignee,
  external_issues: [],
  cohort: null,
  fingerprints: i.fingerprints,
});

type IdRequest<B = unknown> = FastifyRequest<{ Params: Static<typeof IdParams>; Body: B }>;

/**
 * Error tracking issues (docs/error-tracking.md): PostHog's `error_tracking/issues` viewset. Issues
 * are made by ingestion; the API lists, reads, changes, merges and splits them.
 */
export const errorTrackingIssueRoutes: ApiPlugin = async (app, { deps }) => {
  const routes = app as unknown as FastifyInstance;
  for (const prefix of PROJECT_PREFIXES) {
    const base = `${prefix}error_tracking/issues/`;
    routes.get(
      base,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: "The project's issues, newest first",
          params: ProjectIdParams,
          querystring: ListQuery,
          response: { 200: Paginated(Issue) },
        },
      },
      async (request: FastifyRequest<{ Querystring: Static<typeof ListQuery> }>) => {
        const q = request.query;
        const page = pageOf(q);
        const assignee =
          q.assignee_user !== undefined
            ? { type: 'user' as const, id: q.assignee_user }
            : q.assignee_role !== undefined
              ? { type: 'role' as const, id: q.assignee_role }
              : undefined;
        const data = await listIssueViews(
          deps,
          projectAccessOf(request),
          {
            status: q.status,
            assignee,
            search: q.search,
            createdAfter: q.date_from && new Date(q.date_from).toISOString(),
            createdBefore: q.date_to && new Date(q.date_to).toISOString(),
          },
          page,
        );
        return paginate(request, page, { count: data.count, results: data.results.map(shapeIssue) });
      },
    );
    routes.get(
      `${base}:id/`,
      {
        config: { scope: read },
        schema: { tags, summary: 'One issue', params: IdParams, response: { 200: Issue } },
      },
      async (request: IdRequest) =>
        shapeIssue(await getIssueView(deps, projectAccessOf(request), request.params.id)),
    );
    for (const method of ['PATCH', 'PUT'] as const) {
      routes.route({
        method,
        url: `${base}:id/`,
        config: { scope: write },
        schema: {
          tags,
          summary: 'Change status, name, description or assignee',
          params: IdParams,
          body: IssueBody,
          response: { 200: Issue },
        },
        handler: async (request: IdRequest<Static<typeof IssueBody>>) => {
          const { assignee, ...rest } = request.body ?? {};
          return shapeIssue(
            await changeIssue(deps, projectAccessOf(request), request.params.id, {
              ...rest,
              ...(assignee !== undefined ? { assignee: assignee as never } : {}),
            }),
          );
        },
      });
    }
    routes.patch(
      `${base}:id/assign/`,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Assign the issue to a user or role (null: unassign)',
          params: IdParams,
          body: AssignBody,
          response: { 200: Type.Object({ success: Type.Boolean() }) },
        },
      },
      async (request: IdRequest<Static<typeof AssignBody>>) => {
        await changeIssue(deps, projectAccessOf(request), request.params.id, {
          assignee: request.body.assignee as never,
        });
        return { success: true };
      },
    );
    routes.post(
      `${base}:id/merge/`,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: "Merge other issues into this one (their fingerprints move here; they're gone)",
          params: IdParams,
          body: MergeBody,
          response: { 200: Type.Object({ success: Type.Boolean() }) },
        },
      },
      async (request: IdRequest<Static<typeof MergeBody>>) => {
        await mergeInto(deps, projectAccessOf(request), request.params.id, request.body.ids);
        return { success: true };
      },
    );
    routes.post(
      `${base}:id/split/`,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Split fingerprints of this issue into issues of their own',
          params: IdParams,
          body: SplitBody,
          response: {
            200: Type.Object({ success: Type.Boolean(), new_issue_ids: Type.Array(Type.String()) }),
          },
        },
      },
      async (request: IdRequest<Static<typeof SplitBody>>) => {
        const items = request.body.fingerprints.map((f) => (typeof f === 'string' ? { fingerprint: f } : f));
        if (items.some((f) => f.fingerprint === ''))
          throw validationError('Empty fingerprint.', 'fingerprints');
        const ids = await splitFingerprints(deps, projectAccessOf(request), request.params.id, items);
        return { success: true, new_issue_ids: ids };
      },
    );
  }
};
