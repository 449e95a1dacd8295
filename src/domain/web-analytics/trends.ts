import { parseSelect } from '../../hogql/parse.js';
import type { QueryResult, RunnerContext } from '../query/context.js';
import type { QueryNode } from '../query/kinds.js';
import { queryResponse } from '../query/response.js';
import type { QueryRunner } from '../query/run.js';
import { runSelect } from '../query/run-select.js';
import { isoDateTimeColumns } from '../query/values.js';
import {
  checkWebNode,
  filterExpr,
  invalid,
  num,
  periodConds,
  periods,
  sessionRows,
  type WebNode,
} from './common.js';

/** PostHog's WebTrendsMetric values and the per-bucket aggregate over session rows for each. */
const METRICS: Record<string, string> = {
  UniqueUsers: 'uniq(person_id)',
  PageViews: 'sum(views)',
  Sessions: 'uniq(session_id)',
  // Counts and sums, not rates: PostHog's client divides (bounce rate = Bounces / TotalSessions).
  Bounces: 'sum(bounce)',
  SessionDuration: 'sum(duration)',
  TotalSessions: 'count()',
};

/** The intervals a bucket can be (HogQL's own toStartOf*, in the project's time zone). */
const INTERVALS: Record<string, string> = {
  hour: 'toStartOfHour',
  day: 'toStartOfDay',
  week: 'toStartOfWeek',
  month: 'toStartOfMonth',
};

interface TrendsNode extends WebNode {
  interval?: string;
  metrics?: string[];
}

export function checkTrendsNode(node: TrendsNode): TrendsNode {
  checkWebNode(node);
  if (typeof node.interval !== 'string' || !Object.hasOwn(INTERVALS, node.interval))
    throw invalid(
      `interval ${JSON.stringify(node.interval ?? null)} is not supported. Supported: ${Object.keys(INTERVALS).join(', ')}.`,
      'interval',
    );
  const m = node.metrics;
  if (
    !Array.isArray(m) ||
    m.length > Object.keys(METRICS).length ||
    m.some((x) => typeof x !== 'string' || !Object.hasOwn(METRICS, x))
  )
    throw invalid(`metrics must be a list of: ${Object.keys(METRICS).join(', ')}`, 'metrics');
  return node;
}

/**
 * WebTrendsQuery: per interval bucket of the session's start, the requested metrics over the
 * sessions that started in the period (the same session rows as WebOverviewQuery). Buckets without
 * sessions are left out and the results are ordered by bucket, as PostHog's runner answers.
 */
export async function runWebTrends(node: TrendsNode, ctx: RunnerContext): Promise<QueryResult> {
  // One period only: PostHog's web trends answer no previous period either.
  const p = { ...periods(node, ctx), prevFrom: null };
  const { cur } = periodConds(p);
  const metrics = [...new Set(node.metrics?.length ? node.metrics : ['UniqueUsers'])];
  const text = `SELECT ${INTERVALS[node.interval as string]}(start) AS bucket, ${metrics.map((m) => METRICS[m]).join(', ')}
    FROM (${sessionRows(p)})
    WHERE ${cur}
    GROUP BY bucket
    ORDER BY bucket ASC`;
  const run = await runSelect(parseSelect(text), ctx, {
    modifiers: node.modifiers,
    exprs: { filters: filterExpr(node, ctx) },
  });
  // Buckets as PostHog's JSON shows a DateTime: ISO 8601 with the offset (a week or month is a Date).
  isoDateTimeColumns(run.rows, run.types, run.timezone);
  const results = run.rows.map((r) => ({
    bucket: String(r[0]),
    metrics: Object.fromEntries(metrics.map((m, i) => [m, num(r[i + 1]) ?? 0])),
  }));
  return queryResponse(
    {
      results,
      types: run.types,
      hogql: run.hogql,
      samplingRate: { numerator: 1 },
      usedPreAggregatedTables: false,
    },
    { seconds: run.seconds, modifiers: node.modifiers },
  );
}

export const webTrendsRunner: QueryRunner = {
  check: (node: QueryNode) => checkTrendsNode(node as TrendsNode),
  run: (node, ctx) => runWebTrends(node as TrendsNode, ctx),
  staleness: { interval: 'minute' },
};
