import { ApiError, validationError } from '../../errors.js';
import { resolveActions } from '../actions/resolve.js';
import type { Deps } from '../deps.js';
import { unwrapQuery } from '../query/kinds.js';
import { prepareNode } from '../query/prepare.js';
import { jsonDepth, jsonSize } from './fields.js';

/** Kinds an insight visualises through InsightVizNode. */
const VIZ_KINDS = new Set([
  'TrendsQuery',
  'FunnelsQuery',
  'RetentionQuery',
  'PathsQuery',
  'StickinessQuery',
  'LifecycleQuery',
]);
/** Kinds shown as a table (DataTableNode). */
const TABLE_KINDS = new Set(['EventsQuery', 'ActorsQuery', 'SessionsQuery', 'GroupsQuery']);
const WRAPPERS = new Set(['InsightVizNode', 'DataTableNode', 'DataVisualizationNode']);

export const MAX_QUERY_JSON = 256 * 1024;

/**
 * The query as PostHog stores an insight's: a bare query node is wrapped the way PostHog's
 * frontend wraps it (charts in InsightVizNode, SQL in DataVisualizationNode, lists in
 * DataTableNode); a wrapper is kept as sent.
 */
export function wrapQuery(query: Record<string, unknown>): Record<string, unknown> {
  const kind = query.kind as string;
  if (WRAPPERS.has(kind)) return query;
  if (VIZ_KINDS.has(kind)) return { kind: 'InsightVizNode', source: query };
  if (kind === 'HogQLQuery') return { kind: 'DataVisualizationNode', source: query };
  if (TABLE_KINDS.has(kind)) return { kind: 'DataTableNode', source: query };
  return query;
}

/**
 * A query an insight may save: an object Burrow can run in this project (actions resolved, the
 * runner's own checks passed), within size and depth bounds. Errors name `query`.
 */
export async function checkInsightQuery(
  deps: Pick<Deps, 'meta'>,
  teamId: number,
  raw: unknown,
): Promise<Record<string, unknown>> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw validationError('Must be a query object with a `kind`.', 'query', 'invalid');
  jsonSize(raw, 'query', MAX_QUERY_JSON);
  jsonDepth(raw, 'query');
  try {
    prepareNode(await resolveActions(deps, teamId, unwrapQuery(structuredClone(raw))), null, null);
  } catch (err) {
    if (err instanceof ApiError && err.status === 400)
      throw new ApiError(
        400,
        'validation_error',
        err.code,
        err.detail,
        err.attr ? `query__${err.attr}` : 'query',
      );
    throw err;
  }
  return wrapQuery(raw as Record<string, unknown>);
}
