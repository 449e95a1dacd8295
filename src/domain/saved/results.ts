import { ApiError } from '../../errors.js';
import type { TeamRecord } from '../../store/meta/teams.js';
import type { Deps } from '../deps.js';
import { executeQueryRequest } from '../query/execute.js';
import type { ExecutionAnswer, ExecutionMode, QueryExecution } from '../query/execution-port.js';
import type { DashboardFilter } from '../query/filters.js';

/**
 * What an insight shows besides its definition: PostHog's result fields of InsightSerializer. `S` is
 * the query machinery's run status, which the domain passes on unread.
 */
export interface InsightResultFields<S = unknown> {
  result: unknown;
  hasMore: boolean | null;
  columns: unknown[] | null;
  types: unknown[] | null;
  hogql: string | null;
  resolved_date_range: unknown;
  last_refresh: string | null;
  next_allowed_client_refresh: string | null;
  cache_target_age: string | null;
  is_cached: boolean;
  query_status: S | null;
  timezone: string;
}

export const emptyResult = <S>(timezone: string, status: S | null = null): InsightResultFields<S> => ({
  result: null,
  hasMore: null,
  columns: null,
  types: null,
  hogql: null,
  resolved_date_range: null,
  last_refresh: null,
  next_allowed_client_refresh: null,
  cache_target_age: null,
  is_cached: false,
  query_status: status,
  timezone,
});

export interface ResultRequest {
  team: TeamRecord;
  query: Record<string, unknown> | null;
  mode: ExecutionMode;
  insightId: number;
  dashboardId?: number | null;
  filtersOverride?: DashboardFilter | null;
  variablesOverride?: Record<string, unknown> | null;
  /** When the query no longer runs (an action was deleted...), answer no result instead of a 400. */
  quiet?: boolean;
  signal?: AbortSignal;
}

/** An insight's results through the shared query machinery (same cache as `/query`). */
export async function insightResult<S>(
  deps: Deps,
  service: QueryExecution<ExecutionAnswer<S>>,
  request: ResultRequest,
): Promise<InsightResultFields<S>> {
  const { team } = request;
  if (!request.query) return emptyResult<S>(team.timezone);
  try {
    const outcome = await executeQueryRequest(deps, service, {
      team,
      query: request.query,
      mode: request.mode,
      insightId: request.insightId,
      dashboardId: request.dashboardId ?? null,
      filtersOverride: request.filtersOverride ?? null,
      variablesOverride: request.variablesOverride ?? null,
      ...(request.signal ? { signal: request.signal } : {}),
    });
    if (outcome.kind !== 'result') return emptyResult(team.timezone, outcome.body.query_status);
    const body = outcome.body as unknown as Record<string, unknown>;
    return {
      result: body.results ?? body.result ?? null,
      hasMore: typeof body.hasMore === 'boolean' ? body.hasMore : null,
      columns: Array.isArray(body.columns) ? body.columns : null,
      types: Array.isArray(body.types) ? body.types : null,
      hogql: typeof body.hogql === 'string' ? body.hogql : null,
      resolved_date_range: body.resolved_date_range ?? null,
      last_refresh: (body.last_refresh as string | null) ?? null,
      next_allowed_client_refresh: (body.next_allowed_client_refresh as string | null) ?? null,
      cache_target_age: (body.cache_target_age as string | null) ?? null,
      is_cached: body.is_cached === true,
      query_status: outcome.body.query_status ?? null,
      timezone: team.timezone,
    };
  } catch (err) {
    if (request.quiet && err instanceof ApiError && err.status < 500) return emptyResult<S>(team.timezone);
    throw err;
  }
}

/** Runs `tasks` at most `limit` at a time, in order; results keep the tasks' order. */
export async function boundedAll<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const out = new Array<T>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await (tasks[i] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return out;
}
