import { Type } from 'typebox';
import {
  ANNOTATION_SCOPES,
  annotationTargets,
  changeAnnotation,
  createAnnotation,
  dateParam,
  deleteAnnotation,
  getAnnotation,
  listProjectAnnotations,
} from '../domain/saved/annotations.js';
import { scope } from '../domain/scopes.js';
import { validationError } from '../errors.js';
import { principalOf, projectAccessOf } from '../server/auth.js';
import type { AnnotationRecord, AnnotationScope } from '../store/meta/annotations.js';
import type { ApiPlugin } from './context.js';
import { resourceRoutes } from './resource-routes.js';
import { idOf } from './saved-common.js';
import { DateTime, Nullable, NullableDateTime, toUserBasic, UserBasic } from './schemas/common.js';
import { ItemIdParams } from './schemas/insights.js';

const tags = ['annotations'];

const Annotation = Type.Object({
  id: Type.Integer(),
  content: Nullable(Type.String()),
  date_marker: NullableDateTime,
  creation_type: Type.String(),
  dashboard_item: Nullable(Type.Integer()),
  dashboard_id: Nullable(Type.Integer()),
  dashboard_name: Nullable(Type.String()),
  insight_short_id: Nullable(Type.String()),
  insight_name: Nullable(Type.String()),
  insight_derived_name: Nullable(Type.String()),
  created_by: Nullable(UserBasic),
  created_at: DateTime,
  updated_at: DateTime,
  deleted: Type.Boolean(),
  scope: Type.String(),
});

const AnnotationBody = Type.Object(
  {
    content: Type.Optional(Nullable(Type.String({ maxLength: 8192 }))),
    date_marker: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
    creation_type: Type.Optional(Type.String({ maxLength: 3 })),
    scope: Type.Optional(Type.String({ maxLength: 20, description: ANNOTATION_SCOPES.join(', ') })),
    dashboard_item: Type.Optional(
      Nullable(Type.Integer({ description: 'The insight this annotation marks' })),
    ),
    dashboard_id: Type.Optional(Nullable(Type.Integer())),
    deleted: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  search: Type.Optional(Type.String({ maxLength: 400 })),
  scope: Type.Optional(Type.String({ maxLength: 20 })),
  after: Type.Optional(Type.String({ maxLength: 64 })),
  before: Type.Optional(Type.String({ maxLength: 64 })),
  date_from: Type.Optional(Type.String({ maxLength: 64 })),
  date_to: Type.Optional(Type.String({ maxLength: 64 })),
  dashboardItemId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
  dashboardId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
});

export const annotationRoutes: ApiPlugin = async (app, { deps }) => {
  const shapeAll = async (teamId: number, items: AnnotationRecord[]) => {
    const { users, insights, dashboardNames: dashboards } = await annotationTargets(deps, teamId, items);
    return items.map((a) => {
      const insight = insights.find((i) => i.id === a.insightId);
      const user = a.createdBy === null ? undefined : users.get(a.createdBy);
      return {
        id: a.id,
        content: a.content,
        date_marker: a.dateMarker,
        creation_type: a.creationType,
        dashboard_item: a.insightId,
        dashboard_id: a.dashboardId,
        dashboard_name: a.dashboardId === null ? null : (dashboards.get(a.dashboardId) ?? null),
        insight_short_id: insight?.shortId ?? null,
        insight_name: insight?.name ?? null,
        insight_derived_name: insight?.derivedName ?? null,
        created_by: user ? toUserBasic(user) : null,
        created_at: a.createdAt,
        updated_at: a.updatedAt,
        deleted: a.deleted,
        scope: a.scope,
      };
    });
  };

  const shape = async (teamId: number, a: AnnotationRecord) =>
    (await shapeAll(teamId, [a]))[0] as Awaited<ReturnType<typeof shapeAll>>[number];

  resourceRoutes(app, {
    path: 'annotations/',
    tags,
    read: scope('annotation', 'read'),
    write: scope('annotation', 'write'),
    item: Annotation,
    body: AnnotationBody,
    params: ItemIdParams,
    list: {
      summary: "The project's annotations and its organization's organization-wide ones, newest marker first",
      querystring: ListQuery,
      handler: async (request, page) => {
        const access = projectAccessOf(request);
        const q = request.query;
        if (q.scope !== undefined && !ANNOTATION_SCOPES.includes(q.scope as AnnotationScope))
          throw validationError(`"${q.scope}" is not a valid choice.`, 'scope', 'invalid_choice');
        const after = dateParam(q.after ?? q.date_from, q.after !== undefined ? 'after' : 'date_from');
        const before = dateParam(q.before ?? q.date_to, q.before !== undefined ? 'before' : 'date_to');
        const data = await listProjectAnnotations(
          deps,
          access,
          {
            ...(q.search ? { search: q.search } : {}),
            ...(q.scope ? { scope: q.scope as AnnotationScope } : {}),
            ...(after ? { after } : {}),
            ...(before ? { before } : {}),
            ...(q.dashboardItemId !== undefined ? { insightId: q.dashboardItemId } : {}),
            ...(q.dashboardId !== undefined ? { dashboardId: q.dashboardId } : {}),
          },
          page,
        );
        return { count: data.count, results: await shapeAll(access.team.id, data.results) };
      },
    },
    create: {
      summary: 'Create an annotation',
      handler: async (request) => {
        const access = projectAccessOf(request);
        const created = await createAnnotation(deps, access, principalOf(request), request.body);
        return shape(access.team.id, created);
      },
    },
    retrieve: {
      summary: 'One annotation',
      handler: async (request) => {
        const access = projectAccessOf(request);
        return shape(access.team.id, await getAnnotation(deps, access, idOf(request.params.id)));
      },
    },
    change: {
      summary: 'Change an annotation; `deleted: true` deletes it',
      handler: async (request) => {
        const access = projectAccessOf(request);
        const updated = await changeAnnotation(deps, access, idOf(request.params.id), request.body);
        return shape(access.team.id, updated);
      },
    },
    remove: {
      summary: 'Delete an annotation (marks it `deleted`)',
      handler: (request) => deleteAnnotation(deps, projectAccessOf(request), idOf(request.params.id)),
    },
  });
};
