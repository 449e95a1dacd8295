import type { Deps } from '../deps.js';
import { errorTrackingRunners } from '../error-tracking/query.js';
import { legacyExperimentRunners } from '../experiments/legacy-query.js';
import { experimentRunners } from '../experiments/query.js';
import { funnelRetentionPathsRunners } from '../insights/registry.js';
import { insightRunners } from '../insights/trends/registry.js';
import { tracesRunners } from '../llm-analytics/traces-query.js';
import { webAnalyticsRunners } from '../web-analytics/registry.js';
import { actorsRunner } from './actors-runner.js';
import type { QueryResult, RunnerContext } from './context.js';
import { checkDatabaseSchemaNode, databaseSchema } from './database-schema.js';
import { eventsRunner } from './events-runner.js';
import { checkHogQLNode, runHogQLQuery } from './hogql-runner.js';
import { type QueryNode, unsupportedKind } from './kinds.js';
import { checkMetadataNode, hogqlMetadata } from './metadata.js';
import { sessionsRunner } from './sessions-runner.js';

export interface QueryRunner {
  /** Validates the node before anything is cached or queued (400 on a bad node). */
  check(node: QueryNode): QueryNode;
  run(node: QueryNode, ctx: RunnerContext): Promise<QueryResult>;
  /**
   * Answered at once, outside the cache and the background queue, with no cache fields: PostHog
   * handles HogQLMetadata this way (it only checks a query; nothing runs on the engine).
   */
  direct?: boolean;
  /**
   * A summary of the metadata the answer joins (e.g. issue statuses), part of the cache key, so a
   * change there is not answered from a cached result.
   */
  metaState?(deps: Pick<Deps, 'meta'>, teamId: number): Promise<unknown>;
  /** Staleness interval: queries without a date range use `minute`; HogQL's target age uses `day`. */
  staleness?: { interval?: 'minute' | 'hour' | 'day' | 'week' | 'month' | null; targetAgeInterval?: 'day' };
  /** Per-query staleness (the query's interval and date_to); when given it replaces `staleness`. */
  hints?(
    node: QueryNode,
    team: { timezone: string; now: Date },
  ): { interval?: 'minute' | 'hour' | 'day' | 'week' | 'month' | null; dateTo?: Date | null };
}

/** Every query kind `/query` runs, by `kind`. */
const RUNNERS: Readonly<Record<string, QueryRunner>> = {
  HogQLQuery: {
    check: (node) => checkHogQLNode(node) as unknown as QueryNode,
    run: (node, ctx) => runHogQLQuery(node as never, ctx),
    staleness: { interval: 'minute', targetAgeInterval: 'day' },
  },
  EventsQuery: eventsRunner,
  ActorsQuery: actorsRunner,
  SessionsQuery: sessionsRunner,
  ...tracesRunners,
  ...errorTrackingRunners,
  ...insightRunners,
  ...funnelRetentionPathsRunners,
  ...webAnalyticsRunners,
  ...experimentRunners,
  ...legacyExperimentRunners,
  HogQLMetadata: {
    check: checkMetadataNode,
    run: async (node, ctx) => hogqlMetadata(node as never, ctx) as QueryResult,
    direct: true,
  },
  // Nothing runs on the engine: the answer is the compiler's own table list.
  DatabaseSchemaQuery: {
    check: checkDatabaseSchemaNode,
    run: async () => databaseSchema(),
    direct: true,
  },
};

export function runnerFor(kind: string): QueryRunner {
  const runner = RUNNERS[kind];
  if (!runner) throw unsupportedKind(kind, runnableKinds());
  return runner;
}

/** The kinds `/query` runs, wrappers included (their `source` runs). */
export function runnableKinds(): string[] {
  return [...Object.keys(RUNNERS), 'DataTableNode', 'DataVisualizationNode', 'InsightVizNode'];
}
