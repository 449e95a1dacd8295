import type { TeamRecord } from '../../store/meta/teams.js';
import type { Deps } from '../deps.js';
import type { ExecutionAnswer, ExecutionMode, QueryExecution } from './execution-port.js';
import type { DashboardFilter } from './filters.js';
import { prepareQuery } from './prepare.js';

export interface QueryRunRequest {
  team: TeamRecord;
  /** The query as given (wrappers are unwrapped here). */
  query: unknown;
  refresh?: unknown;
  legacyAsync?: unknown;
  /** Overrides the `/query` mapping of `refresh` (insights use PostHog's general mapping). */
  mode?: ExecutionMode;
  clientQueryId?: string | null;
  filtersOverride?: DashboardFilter | null;
  variablesOverride?: Record<string, unknown> | null;
  insightId?: number | null;
  dashboardId?: number | null;
  signal?: AbortSignal;
  /** The kind named by `/query/{kind}/`, which must match the body's. */
  kindInPath?: string;
}

/**
 * One query through the cache and the refresh modes: what `/query`, saved insights and dashboard
 * tiles all call, so an insight and the same query sent to `/query` share one cache entry.
 */
export async function executeQueryRequest<A extends ExecutionAnswer>(
  deps: Deps,
  service: QueryExecution<A>,
  request: QueryRunRequest,
): Promise<A> {
  const team = request.team;
  const prepared = await prepareQuery(
    deps,
    team,
    {
      query: request.query,
      filters_override: request.filtersOverride ?? null,
      variables_override: request.variablesOverride ?? null,
    },
    request.kindInPath,
  );
  if (prepared.direct) {
    const body = await prepared.run({
      signal: request.signal ?? new AbortController().signal,
      marker: '',
      async: false,
    });
    // A direct answer (HogQLMetadata) never reaches the service: it is shaped like the service's
    // result answers (kind, httpStatus, body), which is all that callers read of one.
    return { kind: 'result', httpStatus: 200, body } as unknown as A;
  }
  return service.executeQuery({
    team: { id: team.id, timezone: team.timezone },
    query: prepared.node,
    refresh: request.refresh,
    legacyAsync: request.legacyAsync,
    ...(request.mode ? { mode: request.mode } : {}),
    clientQueryId: request.clientQueryId ?? null,
    modifiers: prepared.node.modifiers,
    insightId: request.insightId ?? null,
    dashboardId: request.dashboardId ?? null,
    cacheKeyExtra: prepared.cacheKeyExtra,
    staleness: prepared.staleness,
    ...(request.signal ? { signal: request.signal } : {}),
    run: prepared.run,
  });
}
