import {
  type DashboardRecord,
  type TileRecord,
  tilesOf,
  tilesOfInsights,
} from '../../store/meta/dashboards.js';
import { findInsights, type InsightRecord } from '../../store/meta/insights.js';
import type { TeamRecord } from '../../store/meta/teams.js';
import { usersById } from '../accounts/users.js';
import type { Deps } from '../deps.js';
import type { ExecutionAnswer, ExecutionMode, QueryExecution } from '../query/execution-port.js';
import type { DashboardFilter } from '../query/filters.js';
import { boundedAll, type InsightResultFields, insightResult } from './results.js';
import { isDashboardShared } from './sharing.js';

/** Tiles of one dashboard calculated at once; the executor's own bounds apply beyond this. */
export const TILE_CONCURRENCY = 4;

export interface TileView<S = unknown> {
  tile: TileRecord;
  insight: InsightRecord | null;
  result: InsightResultFields<S> | null;
}

const hasFilters = (f: Record<string, unknown> | null | undefined) =>
  !!f && Object.values(f).some((v) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0));

/**
 * A dashboard's live tiles with their insights' results, the dashboard's filters applied to every
 * insight through the query machinery (so a tile's cache entry is that of the filtered query).
 * Tiles of deleted insights are left out, as in PostHog.
 */
export async function dashboardTiles<S>(
  deps: Deps,
  service: QueryExecution<ExecutionAnswer<S>>,
  team: TeamRecord,
  dashboard: DashboardRecord,
  options: { mode: ExecutionMode; filtersOverride?: DashboardFilter | null; signal?: AbortSignal },
): Promise<TileView<S>[]> {
  const tiles = await tilesOf(deps.meta, [dashboard.id]);
  const insights = new Map(
    (
      await findInsights(
        deps.meta,
        team.id,
        tiles.flatMap((t) => (t.insightId === null ? [] : [t.insightId])),
      )
    ).map((i) => [i.id, i]),
  );
  const filters =
    options.filtersOverride ??
    (hasFilters(dashboard.filters) ? (dashboard.filters as DashboardFilter) : null);
  const visible = tiles.filter((t) => t.insightId === null || insights.get(t.insightId)?.deleted === false);
  return boundedAll(
    visible.map((tile) => async (): Promise<TileView<S>> => {
      const insight = tile.insightId === null ? null : (insights.get(tile.insightId) as InsightRecord);
      if (!insight) return { tile, insight: null, result: null };
      const result = await insightResult(deps, service, {
        team,
        query: insight.query,
        mode: options.mode,
        insightId: insight.id,
        dashboardId: dashboard.id,
        filtersOverride: filters,
        variablesOverride: dashboard.variables,
        // One failing tile (a deleted action, bad SQL) must not hide the others.
        quiet: true,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return { tile, insight, result };
    }),
    TILE_CONCURRENCY,
  );
}

/**
 * A dashboard with all its response shows: the tiles with results, the users named (creator, text
 * tiles' authors, insights' authors), the tiles placing its insights (their `dashboards`), `is_shared`.
 */
export async function dashboardView<S>(
  deps: Deps,
  service: QueryExecution<ExecutionAnswer<S>>,
  team: TeamRecord,
  dashboard: DashboardRecord,
  options: { mode: ExecutionMode; filtersOverride?: DashboardFilter | null; signal?: AbortSignal },
) {
  const views = await dashboardTiles(deps, service, team, dashboard, options);
  const insights = views.flatMap((v) => (v.insight ? [v.insight] : []));
  const [users, insightTiles, shared] = await Promise.all([
    usersById(deps, [
      dashboard.createdBy,
      ...views.map((v) => v.tile.textCreatedBy),
      ...insights.flatMap((i) => [i.createdBy, i.lastModifiedBy]),
    ]),
    tilesOfInsights(
      deps.meta,
      insights.map((i) => i.id),
    ),
    isDashboardShared(deps, dashboard),
  ]);
  return { views, users, insightTiles, shared };
}
