import { ApiError } from '../../errors.js';
import { closest } from '../../hogql/functions/suggest.js';

/** Every query kind PostHog knows; a known kind Burrow does not run is a clear 400, not a parse error. */
export const POSTHOG_KINDS = new Set(
  (
    'EventsNode ActionsNode DataWarehouseNode EventsQuery PersonsNode HogQuery HogQLQuery HogQLASTQuery ' +
    'HogQLMetadata HogQLAutocomplete ActorsQuery GroupsQuery FunnelsActorsQuery FunnelCorrelationActorsQuery ' +
    'SessionsTimelineQuery RecordingsQuery SessionAttributionExplorerQuery RevenueExampleEventsQuery ' +
    'RevenueExampleDataWarehouseTablesQuery ErrorTrackingQuery ErrorTrackingSimilarIssuesQuery ' +
    'ErrorTrackingIssueCorrelationQuery LogsQuery SessionBatchEventsQuery DataTableNode DataVisualizationNode ' +
    'SavedInsightNode InsightVizNode TrendsQuery CalendarHeatmapQuery FunnelsQuery RetentionQuery PathsQuery ' +
    'StickinessQuery StickinessActorsQuery LifecycleQuery InsightActorsQuery InsightActorsQueryOptions ' +
    'FunnelCorrelationQuery WebOverviewQuery WebStatsTableQuery WebExternalClicksTableQuery WebGoalsQuery ' +
    'WebVitalsQuery WebVitalsPathBreakdownQuery WebPageURLSearchQuery WebTrendsQuery ' +
    'WebAnalyticsExternalSummaryQuery ExperimentQuery ExperimentExposureQuery ExperimentTrendsQuery ' +
    'ExperimentFunnelsQuery DatabaseSchemaQuery SuggestedQuestionsQuery TeamTaxonomyQuery EventTaxonomyQuery ' +
    'ActorsPropertyTaxonomyQuery TracesQuery TraceQuery VectorSearchQuery DocumentSimilarityQuery ' +
    'UsageMetricsQuery SessionsQuery MarketingAnalyticsTableQuery MarketingAnalyticsAggregatedQuery'
  ).split(' '),
);

/** Nodes that only wrap another query: the API runs their `source`. */
const WRAPPERS = new Set(['DataTableNode', 'DataVisualizationNode', 'InsightVizNode']);

export type QueryNode = { kind: string; [key: string]: unknown };

const parseError = (detail: string, attr: string | null = null) =>
  new ApiError(400, 'validation_error', 'parse_error', detail, attr);

/** Where the node that runs sits in the request body: `query`, or `query__source` in a wrapper. */
export function nodePath(query: unknown): string {
  let path = 'query';
  let node = query as { kind?: unknown; source?: unknown } | null;
  for (let depth = 0; depth < 8 && node && typeof node === 'object'; depth++) {
    if (typeof node.kind !== 'string' || !WRAPPERS.has(node.kind)) return path;
    path += '__source';
    node = node.source as typeof node;
  }
  return path;
}

/** An unknown kind: the nearest known one when there is one, and the kinds this server runs. */
function unknownKind(kind: string, runnable: readonly string[]): ApiError {
  const shown = kind.slice(0, 100);
  const near = closest(shown, [...runnable, ...POSTHOG_KINDS]);
  return parseError(
    `1 validation error for QueryRequest\nquery: Input tag '${shown}' found using 'kind' does not match any of the expected tags.${near ? ` Did you mean '${near}'?` : ''} Kinds this server runs: ${runnable.join(', ')}.`,
    // Relative to the node, like every node error; the endpoint adds the node's path.
    'kind',
  );
}

/** Validates the node's kind and unwraps wrapper nodes (however deeply nested). */
export function unwrapQuery(query: unknown, runnable: readonly string[] = []): QueryNode {
  let node = query;
  for (let depth = 0; depth < 8; depth++) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) {
      throw parseError('1 validation error for QueryRequest\nquery: Input should be an object');
    }
    const kind = (node as { kind?: unknown }).kind;
    if (typeof kind !== 'string')
      throw parseError(
        "1 validation error for QueryRequest\nquery: Unable to extract tag using discriminator 'kind'",
      );
    if (!POSTHOG_KINDS.has(kind)) throw unknownKind(kind, runnable);
    if (!WRAPPERS.has(kind)) return node as QueryNode;
    node = (node as { source?: unknown }).source;
  }
  throw parseError('1 validation error for QueryRequest\nquery: nested too deeply');
}

export const unsupportedKind = (kind: string, runnable: readonly string[] = []) =>
  new ApiError(
    400,
    'validation_error',
    'invalid_input',
    `Unsupported query kind: ${kind}${runnable.length ? `. Kinds this server runs: ${runnable.join(', ')}.` : ''}`,
    'kind',
  );
