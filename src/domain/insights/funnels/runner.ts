import type { AnyProperties } from '../../../hogql/property-filters.js';
import type { QueryResult, RunnerContext } from '../../query/context.js';
import type { QueryNode } from '../../query/kinds.js';
import { queryResponse } from '../../query/response.js';
import type { QueryRunner } from '../../query/run.js';
import { runSelect } from '../../query/run-select.js';
import { type ResolvedDateRange, resolveDateRange } from '../../time/date-range.js';
import type { TrendInterval } from '../../time/intervals.js';
import { insightProperties } from '../entities.js';
import { funnelPersonsQuery } from './persons.js';
import { type FunnelSpec, funnelSpec, invalidFunnel } from './spec.js';
import { shapeSteps, stepsAggregateQuery } from './steps.js';
import { timeToConvert } from './time-to-convert.js';
import { funnelTrends } from './trends.js';

const INTERVALS = ['minute', 'hour', 'day', 'week', 'month'];

export interface FunnelRun {
  spec: FunnelSpec;
  range: ResolvedDateRange;
  properties: AnyProperties;
  node: QueryNode;
  ctx: RunnerContext;
}

function intervalOf(node: QueryNode): TrendInterval {
  const interval = node.interval ?? 'day';
  if (typeof interval !== 'string' || !INTERVALS.includes(interval))
    throw invalidFunnel('interval', `interval must be one of: ${INTERVALS.join(', ')}`);
  return interval as TrendInterval;
}

async function runFunnel(node: QueryNode, ctx: RunnerContext): Promise<QueryResult> {
  const spec = funnelSpec(node);
  const range = resolveDateRange(node.dateRange as never, {
    timezone: ctx.timezone,
    now: ctx.now,
    interval: intervalOf(node),
  });
  const run: FunnelRun = { spec, range, properties: insightProperties(node, ctx), node, ctx };
  let results: unknown;
  let hogql: string;
  let seconds: number;
  if (spec.viz === 'time_to_convert') ({ results, hogql, seconds } = await timeToConvert(run));
  else if (spec.viz === 'trends') ({ results, hogql, seconds } = await funnelTrends(run));
  else {
    const out = await runSelect(
      stepsAggregateQuery(spec, funnelPersonsQuery(spec, range, run.properties)),
      ctx,
      {
        modifiers: node.modifiers as Record<string, unknown> | undefined,
      },
    );
    results = spec.breakdown ? out.rows.map((row) => shapeSteps(spec, row)) : shapeSteps(spec, out.rows[0]);
    hogql = out.hogql;
    seconds = out.seconds;
  }
  return queryResponse(
    {
      results,
      isUdf: false,
      hogql,
    },
    { seconds, modifiers: node.modifiers as Record<string, unknown> | undefined },
    {
      resolved_date_range: {
        date_from: range.dateFrom?.toISOString() ?? null,
        date_to: range.dateTo.toISOString(),
      },
    },
  );
}

export const funnelsRunner: QueryRunner = {
  check: (node) => {
    funnelSpec(node);
    intervalOf(node);
    return node;
  },
  run: runFunnel,
  staleness: { interval: 'day' },
};
