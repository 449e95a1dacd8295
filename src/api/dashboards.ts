import { Type } from 'typebox';
import type { ProjectAccess } from '../domain/access.js';
import { usersById } from '../domain/accounts/users.js';
import { dashboardView } from '../domain/saved/dashboard-view.js';
import {
  changeDashboard,
  createDashboard,
  deleteDashboard,
  getDashboard,
  listProjectDashboards,
} from '../domain/saved/dashboards.js';
import { isDashboardShared } from '../domain/saved/sharing.js';
import { scope } from '../domain/scopes.js';
import type { ExecutionMode } from '../execution/refresh.js';
import type { QueryRuntime } from '../execution/runtime.js';
import { principalOf, projectAccessOf } from '../server/auth.js';
import { Paginated, pageOf, paginate } from '../server/pagination.js';
import type { DashboardRecord } from '../store/meta/dashboards.js';
import type { ApiPlugin } from './context.js';
import { abortOnClose, filtersParam, idOf, refreshModeOf } from './saved-common.js';
import { ProjectIdParams } from './schemas/common.js';
import {
  Dashboard,
  DashboardBasic,
  DashboardBody,
  DashboardListQuery,
  DashboardRetrieveQuery,
  toDashboard,
  toDashboardBasic,
} from './schemas/dashboards.js';
import { ItemIdParams } from './schemas/insights.js';
import { PROJECT_PREFIXES } from './schemas/recordings.js';

const tags = ['dashboards'];
const read = scope('dashboard', 'read');
const write = scope('dashboard', 'write');

export const dashboardRoutes: ApiPlugin<{ query: QueryRuntime }> = async (app, { deps, query }) => {
  /** The dashboard with its tiles; `mode` decides whether tiles are calculated or read from cache. */
  const full = async (
    access: ProjectAccess,
    d: DashboardRecord,
    options: { mode: ExecutionMode; filters?: ReturnType<typeof filtersParam>; signal?: AbortSignal },
  ) => {
    const { views, ...extra } = await dashboardView(deps, query.service, access.team, d, {
      mode: options.mode,
      filtersOverride: options.filters ?? null,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return toDashboard(d, views, extra);
  };

  for (const prefix of PROJECT_PREFIXES) {
    const base = `${prefix}dashboards/`;
    const item = `${base}:id/`;

    app.get(
      base,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'Dashboards (not deleted), pinned first, then by name',
          params: ProjectIdParams,
          querystring: DashboardListQuery,
          response: { 200: Paginated(DashboardBasic) },
        },
      },
      async (request) => {
        const page = pageOf(request.query);
        const q = request.query;
        const data = await listProjectDashboards(
          deps,
          projectAccessOf(request),
          {
            ...(q.search ? { search: q.search } : {}),
            ...(q.pinned !== undefined ? { pinned: q.pinned } : {}),
          },
          page,
        );
        const users = await usersById(
          deps,
          data.results.map((d) => d.createdBy),
        );
        const results = await Promise.all(
          data.results.map(async (d) =>
            toDashboardBasic(d, { users, shared: await isDashboardShared(deps, d) }),
          ),
        );
        return paginate(request, page, { count: data.count, results });
      },
    );

    app.post(
      base,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Create a dashboard',
          params: ProjectIdParams,
          body: DashboardBody,
          response: { 201: Dashboard },
        },
      },
      async (request, reply) => {
        const access = projectAccessOf(request);
        const created = await createDashboard(deps, access, principalOf(request), request.body);
        return reply.code(201).send(await full(access, created, { mode: 'force_cache' }));
      },
    );

    app.get(
      item,
      {
        config: { scope: read },
        schema: {
          tags,
          summary:
            "One dashboard with its tiles' results; `refresh` refreshes every tile (bounded concurrency, async modes in the background)",
          params: ItemIdParams,
          querystring: DashboardRetrieveQuery,
          response: { 200: Dashboard },
        },
      },
      async (request) => {
        const access = projectAccessOf(request);
        const d = await getDashboard(deps, access, idOf(request.params.id));
        return full(access, d, {
          mode: refreshModeOf(request.query.refresh),
          filters: filtersParam(request.query.filters_override),
          signal: abortOnClose(request),
        });
      },
    );

    for (const method of ['patch', 'put'] as const) {
      app[method](
        item,
        {
          config: { scope: write },
          schema: {
            tags,
            summary:
              'Change a dashboard: fields, `filters` for every tile, `tiles` (layouts, colors, text tiles, `deleted`)',
            params: ItemIdParams,
            body: DashboardBody,
            response: { 200: Dashboard },
          },
        },
        async (request) => {
          const access = projectAccessOf(request);
          const d = await changeDashboard(
            deps,
            access,
            principalOf(request),
            idOf(request.params.id),
            request.body,
          );
          return full(access, d, { mode: 'force_cache' });
        },
      );
    }

    app.delete(
      item,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Delete a dashboard (marks it `deleted`; its insights stay)',
          params: ItemIdParams,
          response: { 204: Type.Null() },
        },
      },
      async (request, reply) => {
        await deleteDashboard(deps, projectAccessOf(request), idOf(request.params.id));
        return reply.code(204).send(null);
      },
    );
  }
};
