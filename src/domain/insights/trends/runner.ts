import { ApiError, validationError } from '../../../errors.js';
import { MAX_SELECT_RETURNED_ROWS } from '../../../hogql/limits.js';
import type { QueryResult } from '../../query/context.js';
import type { QueryNode } from '../../query/kinds.js';
import { queryResponse } from '../../query/response.js';
import type { QueryRunner } from '../../query/run.js';
import { runSelect } from '../../query/run-select.js';
import {
  ALL_USERS,
  ALL_USERS_LABEL,
  BREAKDOWN_OTHER,
  breakdownValue,
  checkBreakdown,
  cohortBreakdown,
  DEFAULT_BREAKDOWN_LIMIT,
  resultValue,
  valueLabel,
} from './breakdown.js';
import { compileFormula } from './formula.js';
import { formulaResults, formulasOf } from './formula-results.js';
import { checkMath, MATHS } from './math.js';
import { checkInsightNode, invalidInput, optionalObjectField, type TrendsNode } from './node.js';
import { hasWindow, limitedTo, type SeriesSpec, seriesSelect, topValuesSelect } from './query.js';
import { currentPeriod, type InsightContext, type Period, previousPeriod, seriesFilters } from './scope.js';
import { actionOf, axis, clean, runningSum, type SeriesResult, seriesName, zeroFilled } from './series.js';

/** Displays that show one number per series (PostHog's should_aggregate_values). */
const TOTAL_DISPLAYS = new Set(['BoldNumber', 'ActionsPie', 'ActionsTable', 'WorldMap', 'ActionsBarValue']);

function checkTrends(node: QueryNode): QueryNode {
  const n = checkInsightNode(node) as TrendsNode;
  n.series.forEach((s, i) => {
    const math = checkMath(s, i, MATHS);
    if ((math === 'weekly_active' || math === 'monthly_active') && n.interval === 'minute')
      throw invalidInput(n.kind, `series.${i}.math`, `${math} cannot be used with the minute interval`);
  });
  const tf = optionalObjectField(n, 'trendsFilter');
  if (tf && tf.display !== undefined && tf.display !== null && typeof tf.display !== 'string')
    throw invalidInput(n.kind, 'trendsFilter.display', 'Input should be a valid string');
  for (const f of formulasOf(n)) compileFormula(f.formula, n.series.length);
  checkBreakdown(n.breakdownFilter);
  optionalObjectField(n, 'compareFilter');
  return n;
}

interface PeriodRun {
  period: Period;
  label: 'current' | 'previous' | null;
}

/** One series over one period: one result per breakdown value (top values first, then "other"). */
async function runSeries(
  node: TrendsNode,
  index: number,
  run: PeriodRun,
  ctx: InsightContext,
  total: boolean,
) {
  const series = node.series[index]!;
  const spec: SeriesSpec = {
    series,
    math: checkMath(series, index),
    filters: seriesFilters(series, node, ctx),
    breakdown: null,
  };
  const bf = checkBreakdown(node.breakdownFilter);
  let values: string[] | null = null;
  const cohorts = bf?.breakdown_type === 'cohort' && !bf.breakdowns?.length;
  if (bf && cohorts) {
    // One group per cohort asked for, in that order, even when empty (no top-N: the list is short).
    values = cohortBreakdown(bf).map(String);
    spec.breakdown = breakdownValue(bf);
  } else if (bf) {
    const value = breakdownValue(bf);
    const limit = bf.breakdown_limit ?? DEFAULT_BREAKDOWN_LIMIT;
    const top = await runSelect(topValuesSelect(spec, run.period, value, limit), ctx, {
      modifiers: node.modifiers,
    });
    values = top.rows.map((r) => String(r[0]));
    if (values.length > limit) {
      values = values.slice(0, limit);
      spec.breakdown = limitedTo(value, values, BREAKDOWN_OTHER);
      if (!bf.breakdown_hide_other_aggregation) values.push(BREAKDOWN_OTHER);
    } else spec.breakdown = value;
  }
  // A query returns at most MAX_ROWS rows; refuse rather than answer a truncated series.
  const slack = hasWindow(spec, run.period) ? (run.period.interval === 'hour' ? 24 : 1) * 30 : 0;
  const rows = (run.period.buckets.length + slack) * (values?.length ?? 1);
  if (!total && rows > MAX_SELECT_RETURNED_ROWS)
    throw new ApiError(
      400,
      'validation_error',
      'invalid_input',
      `${run.period.buckets.length} intervals × ${values?.length ?? 1} breakdown values is too many points: use a longer interval, a shorter range or a lower breakdown_limit.`,
      'interval',
    );
  const out = await runSelect(seriesSelect(spec, run.period, total), ctx, { modifiers: node.modifiers });
  const { days, labels, keys } = axis(run.period, ctx.timezone);
  const byValue = new Map<string, Map<string, number>>();
  for (const row of out.rows) {
    const cells = [...row];
    const value = clean(cells.pop());
    const bv = bf ? String(total ? cells[0] : cells[1]) : '';
    const key = total ? '' : String(cells[0]);
    if (!byValue.has(bv)) byValue.set(bv, new Map());
    byValue.get(bv)!.set(key, value);
  }
  const cumulative = node.trendsFilter?.display === 'ActionsLineGraphCumulative';
  const name = seriesName(series);
  const results: SeriesResult[] = (values ?? ['']).map((bv) => {
    const rows = byValue.get(bv) ?? new Map<string, number>();
    const value = bf ? resultValue(bf, bv) : bv;
    const base = {
      label: cohorts
        ? `${name} - ${cohortLabel(bv, ctx)}`
        : bf
          ? node.series.length > 1
            ? `${name} - ${valueLabel(value)}`
            : valueLabel(value)
          : name,
      filter: legacyFilter(node),
      action: actionOf(series, index, days),
      order: index,
      ...(bf ? { breakdown_value: value } : {}),
      ...(run.label ? { compare: true, compare_label: run.label } : {}),
    };
    if (total) return { ...base, data: [], days, labels, count: 0, aggregated_value: rows.get('') ?? 0 };
    const raw = zeroFilled(keys, rows);
    const data = cumulative ? runningSum(raw) : raw;
    const count = cumulative ? (data[data.length - 1] ?? 0) : clean(raw.reduce((a, b) => a + b, 0));
    return { ...base, data, days, labels, count };
  });
  return { results, hogql: out.hogql, more: bf ? values?.includes(BREAKDOWN_OTHER) === true : false };
}

/** PostHog labels a cohort group "<series> - <cohort name>", and "all users" for "all". */
function cohortLabel(key: string, ctx: InsightContext): string {
  if (key === ALL_USERS) return ALL_USERS_LABEL;
  return ctx.cohorts?.(Number(key))?.name ?? key;
}

/** Refuses a cohort breakdown naming a cohort this project does not have (like cohort filters). */
function checkBreakdownCohorts(node: TrendsNode, ctx: InsightContext): void {
  const bf = checkBreakdown(node.breakdownFilter);
  if (bf?.breakdown_type !== 'cohort' || bf.breakdowns?.length) return;
  for (const id of cohortBreakdown(bf))
    if (id !== ALL_USERS && !ctx.cohorts?.(id))
      throw validationError(
        `Cohort with id ${id} does not exist`,
        'breakdownFilter.breakdown',
        'cohort_does_not_exist',
      );
}

function legacyFilter(node: TrendsNode): Record<string, unknown> {
  return {
    insight: 'TRENDS',
    interval: node.interval ?? 'day',
    date_from: node.dateRange?.date_from ?? null,
    date_to: node.dateRange?.date_to ?? null,
    display: node.trendsFilter?.display ?? 'ActionsLineGraph',
  };
}

async function runTrends(node: TrendsNode, ctx: InsightContext): Promise<QueryResult> {
  const started = performance.now();
  checkBreakdownCohorts(node, ctx);
  const current = await currentPeriod(node, ctx);
  const compare = node.compareFilter?.compare === true;
  const runs: PeriodRun[] = compare
    ? [
        { period: current, label: 'current' },
        { period: previousPeriod(current, node.compareFilter?.compare_to, ctx), label: 'previous' },
      ]
    : [{ period: current, label: null }];
  const total = TOTAL_DISPLAYS.has(node.trendsFilter?.display ?? '');
  const perSeries: SeriesResult[][] = [];
  let hogql = '';
  let hasMore = false;
  for (let i = 0; i < node.series.length; i++) {
    const list: SeriesResult[] = [];
    for (const run of runs) {
      const out = await runSeries(node, i, run, ctx, total);
      list.push(...out.results);
      hogql ||= out.hogql;
      hasMore ||= out.more;
    }
    perSeries.push(list);
  }
  const formulas = formulasOf(node);
  const results = formulas.length ? formulaResults(node, perSeries, total) : perSeries.flat();
  return queryResponse(
    {
      results,
      hasMore,
      hogql,
    },
    { seconds: (performance.now() - started) / 1000, modifiers: node.modifiers },
    {
      resolved_date_range: { date_from: current.from.toISOString(), date_to: current.dateTo.toISOString() },
    },
  );
}

export const trendsRunner: QueryRunner = {
  check: checkTrends,
  run: (node, ctx) => runTrends(node as TrendsNode, ctx),
  staleness: { interval: 'day' },
};
