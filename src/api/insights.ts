import type { ProjectAccess } from '../domain/access.js';
import { getLiveDashboard } from '../domain/saved/dashboards.js';
import { insightViews } from '../domain/saved/insight-view.js';
import {
  changeInsight,
  createInsight,
  deleteInsight,
  getInsight,
  listProjectInsights,
} from '../domain/saved/insights.js';
import { insightResult } from '../domain/saved/results.js';
import { scope } from '../domain/scopes.js';
import type { QueryRuntime } from '../execution/runtime.js';
import { principalOf, projectAccessOf } from '../server/auth.js';
import type { InsightRecord } from '../store/meta/insights.js';
import type { ApiPlugin } from './context.js';
import { resourceRoutes } from './resource-routes.js';
import { filtersParam, idOf, refreshModeOf, variablesParam } from './saved-common.js';
import {
  Insight,
  InsightBody,
  InsightListQuery,
  type InsightResults,
  InsightRetrieveQuery,
  ItemIdParams,
  toInsight,
} from './schemas/insights.js';

const tags = ['insights'];

export const insightRoutes: ApiPlugin<{ query: QueryRuntime }> = async (app, { deps, query }) => {
  /** Insights as PostHog shows them, with their dashboards, users and results. */
  const shape = async (insights: InsightRecord[], results: (i: InsightRecord) => Promise<InsightResults>) => {
    const view = await insightViews(deps, insights, results);
    return insights.map((i, n) =>
      toInsight(i, { tiles: view.tiles, users: view.users, result: view.results[n] as InsightResults }),
    );
  };

  /** Cached results only (never calculated): what a list or a write answers with. */
  const cachedOnly = (access: ProjectAccess) => (i: InsightRecord) =>
    insightResult(deps, query.service, {
      team: access.team,
      query: i.query,
      mode: 'force_cache',
      insightId: i.id,
      quiet: true,
    });

  const one = async (access: ProjectAccess, i: InsightRecord) =>
    (await shape([i], cachedOnly(access)))[0] as ReturnType<typeof toInsight>;

  resourceRoutes(app, {
    path: 'insights/',
    tags,
    read: scope('insight', 'read'),
    write: scope('insight', 'write'),
    item: Insight,
    body: InsightBody,
    params: ItemIdParams,
    list: {
      summary: 'Saved insights (not deleted), most recently modified first, with cached results',
      querystring: InsightListQuery,
      handler: async (request, page) => {
        const access = projectAccessOf(request);
        const q = request.query;
        const data = await listProjectInsights(
          deps,
          access,
          {
            ...(q.short_id !== undefined ? { shortId: q.short_id } : {}),
            ...(q.search ? { search: q.search } : {}),
            ...(q.saved !== undefined ? { saved: q.saved } : {}),
            ...(q.favorited !== undefined ? { favorited: q.favorited } : {}),
            ...(q.created_by !== undefined ? { createdBy: q.created_by } : {}),
            ...(q.dashboards !== undefined ? { dashboardId: q.dashboards } : {}),
          },
          page,
        );
        const refresh = refreshModeOf(q.refresh);
        // A list reads the cache only unless asked to refresh; then a few insights at a time.
        const results =
          refresh === 'force_cache'
            ? cachedOnly(access)
            : (i: InsightRecord) =>
                insightResult(deps, query.service, {
                  team: access.team,
                  query: i.query,
                  mode: refresh,
                  insightId: i.id,
                  quiet: true,
                });
        return { count: data.count, results: await shape(data.results, results) };
      },
    },
    create: {
      summary: 'Save an insight from a query',
      handler: async (request) => {
        const access = projectAccessOf(request);
        return one(access, await createInsight(deps, access, principalOf(request), request.body));
      },
    },
    retrieve: {
      summary: 'One insight with its results; `refresh` takes the modes of /query (default: cache only)',
      querystring: InsightRetrieveQuery,
      handler: async (request, signal) => {
        const access = projectAccessOf(request);
        const insight = await getInsight(deps, access, idOf(request.params.id));
        const q = request.query;
        const mode = refreshModeOf(q.refresh);
        let filtersOverride = filtersParam(q.filters_override);
        let dashboardId: number | null = null;
        if (q.from_dashboard !== undefined) {
          const dashboard = await getLiveDashboard(deps, access, q.from_dashboard);
          dashboardId = dashboard.id;
          filtersOverride ??= dashboard.filters;
        }
        const variablesOverride = variablesParam(q.variables_override);
        const results = (i: InsightRecord) =>
          insightResult(deps, query.service, {
            team: access.team,
            query: i.query,
            mode,
            insightId: i.id,
            dashboardId,
            filtersOverride: filtersOverride ?? null,
            variablesOverride: variablesOverride ?? null,
            signal,
          });
        return (await shape([insight], results))[0] as ReturnType<typeof toInsight>;
      },
    },
    change: {
      summary: 'Change an insight; `deleted: true` deletes it, `dashboards` sets the dashboards showing it',
      handler: async (request) => {
        const access = projectAccessOf(request);
        const changed = await changeInsight(
          deps,
          access,
          principalOf(request),
          idOf(request.params.id),
          request.body,
        );
        return one(access, changed);
      },
    },
    remove: {
      summary: 'Delete an insight (marks it `deleted`; PATCH `deleted: false` restores it)',
      handler: (request) => deleteInsight(deps, projectAccessOf(request), idOf(request.params.id)),
    },
  });
};
