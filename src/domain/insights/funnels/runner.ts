import { validationError } from '../../../errors.js';
import type { AnyProperties } from '../../../hogql/property-filters.js';
import type { QueryResult, RunnerContext } from '../../query/context.js';
import type { QueryNode } from '../../query/kinds.js';
import { queryResponse } from '../../query/response.js';
import type { QueryRunner } from '../../query/run.js';
import { runSelect } from '../../query/run-select.js';
import { type ResolvedDateRange, resolveDateRange } from '../../time/date-range.js';
import type { TrendInterval } from '../../time/intervals.js';
import { insightProperties } from '../entities.js';
import { ALL_USERS, ALL_USERS_LABEL } from '../trends/breakdown.js';
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

/** One funnel per cohort asked for, in that order, an empty one for a cohort nobody reached. */
function cohortResults(
  spec: FunnelSpec,
  cohorts: Array<number | typeof ALL_USERS>,
  rows: unknown[][],
  ctx: RunnerContext,
): Record<string, unknown>[][] {
  const byValue = new Map(rows.map((r) => [String(r[0]), r]));
  const name = (value: string) =>
    value === ALL_USERS ? ALL_USERS_LABEL : (ctx.cohorts?.(Number(value))?.name ?? value);
  return cohorts.map((c) => {
    const row = byValue.get(String(c));
    return shapeSteps(spec, row ?? [String(c), ...spec.steps.map(() => 0)], name);
  });
}

/** Refuses a cohort breakdown naming a cohort this project does not have (as trends do). */
function checkCohorts(spec: FunnelSpec, ctx: RunnerContext): void {
  if (spec.breakdown?.type !== 'cohort') return;
  for (const id of spec.breakdown.cohorts)
    if (id !== ALL_USERS && !ctx.cohorts?.(id))
      throw validationError(
        `Cohort with id ${id} does not exist`,
        'breakdownFilter.breakdown',
        'cohort_does_not_exist',
      );
}

async function runFunnel(node: QueryNode, ctx: RunnerContext): Promise<QueryResult> {
  const spec = funnelSpec(node);
  checkCohorts(spec, ctx);
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
    results =
      spec.breakdown?.type === 'cohort'
        ? cohortResults(spec, spec.breakdown.cohorts, out.rows, ctx)
        : spec.breakdown
          ? out.rows.map((row) => shapeSteps(spec, row))
          : shapeSteps(spec, out.rows[0]);
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
