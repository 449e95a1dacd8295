import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
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
import { Paginated, pageOf, paginate } from '../server/pagination.js';
import type { InsightRecord } from '../store/meta/insights.js';
import type { ApiPlugin } from './context.js';
import { abortOnClose, filtersParam, idOf, refreshModeOf, variablesParam } from './saved-common.js';
import { ProjectIdParams } from './schemas/common.js';
import {
  Insight,
  InsightBody,
  InsightListQuery,
  type InsightResults,
  InsightRetrieveQuery,
  ItemIdParams,
  toInsight,
} from './schemas/insights.js';
import { PROJECT_PREFIXES } from './schemas/recordings.js';

const tags = ['insights'];
const read = scope('insight', 'read');
const write = scope('insight', 'write');

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

  for (const prefix of PROJECT_PREFIXES) {
    const base = `${prefix}insights/`;
    const item = `${base}:id/`;

    app.get(
      base,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'Saved insights (not deleted), most recently modified first, with cached results',
          params: ProjectIdParams,
          querystring: InsightListQuery,
          response: { 200: Paginated(Insight) },
        },
      },
      async (request) => {
        const access = projectAccessOf(request);
        const page = pageOf(request.query);
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
        return paginate(request, page, { count: data.count, results: await shape(data.results, results) });
      },
    );

    app.post(
      base,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Save an insight from a query',
          params: ProjectIdParams,
          body: InsightBody,
          response: { 201: Insight },
        },
      },
      async (request, reply) => {
        const access = projectAccessOf(request);
        const created = await createInsight(deps, access, principalOf(request), request.body);
        return reply.code(201).send(await one(access, created));
      },
    );

    app.get(
      item,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'One insight with its results; `refresh` takes the modes of /query (default: cache only)',
          params: ItemIdParams,
          querystring: InsightRetrieveQuery,
          response: { 200: Insight },
        },
      },
      async (request) => {
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
        const signal = abortOnClose(request as FastifyRequest);
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
        return (await shape([insight], results))[0];
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
              'Change an insight; `deleted: true` deletes it, `dashboards` sets the dashboards showing it',
            params: ItemIdParams,
            body: InsightBody,
            response: { 200: Insight },
          },
        },
        async (request) => {
          const access = projectAccessOf(request);
          const updated = await changeInsight(
            deps,
            access,
            principalOf(request),
            idOf(request.params.id),
            request.body,
          );
          return one(access, updated);
        },
      );
    }

    app.delete(
      item,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Delete an insight (marks it `deleted`; PATCH `deleted: false` restores it)',
          params: ItemIdParams,
          response: { 204: Type.Null() },
        },
      },
      async (request, reply) => {
        await deleteInsight(deps, projectAccessOf(request), idOf(request.params.id));
        return reply.code(204).send(null);
      },
    );
  }
};
