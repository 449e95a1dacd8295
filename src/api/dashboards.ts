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
import type { DashboardRecord } from '../store/meta/dashboards.js';
import type { ApiPlugin } from './context.js';
import { resourceRoutes } from './resource-routes.js';
import { filtersParam, idOf, refreshModeOf } from './saved-common.js';
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

const tags = ['dashboards'];

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

  resourceRoutes(app, {
    path: 'dashboards/',
    tags,
    read: scope('dashboard', 'read'),
    write: scope('dashboard', 'write'),
    item: Dashboard,
    body: DashboardBody,
    params: ItemIdParams,
    list: {
      summary: 'Dashboards (not deleted), pinned first, then by name',
      querystring: DashboardListQuery,
      item: DashboardBasic,
      handler: async (request, page) => {
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
        return { count: data.count, results };
      },
    },
    create: {
      summary: 'Create a dashboard',
      handler: async (request) => {
        const access = projectAccessOf(request);
        const created = await createDashboard(deps, access, principalOf(request), request.body);
        return full(access, created, { mode: 'force_cache' });
      },
    },
    retrieve: {
      summary:
        "One dashboard with its tiles' results; `refresh` refreshes every tile (bounded concurrency, async modes in the background)",
      querystring: DashboardRetrieveQuery,
      handler: async (request, signal) => {
        const access = projectAccessOf(request);
        const d = await getDashboard(deps, access, idOf(request.params.id));
        return full(access, d, {
          mode: refreshModeOf(request.query.refresh),
          filters: filtersParam(request.query.filters_override),
          signal,
        });
      },
    },
    change: {
      summary:
        'Change a dashboard: fields, `filters` for every tile, `tiles` (layouts, colors, text tiles, `deleted`)',
      handler: async (request) => {
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
    },
    remove: {
      summary: 'Delete a dashboard (marks it `deleted`; its insights stay)',
      handler: (request) => deleteDashboard(deps, projectAccessOf(request), idOf(request.params.id)),
    },
  });
};
