/**
 * PostHog's legacy experiment queries, still answered for experiments whose metrics were saved
 * before ExperimentMetric: `ExperimentTrendsQuery` (a trend counted per variant over the exposed
 * users) and `ExperimentFunnelsQuery` (a funnel broken down by variant). Both run the ordinary
 * trends / funnels insight over the experiment's window, split by `$feature/<flag key>`, and
 * compare the variants with PostHog's stats-version-2 Bayesian models (stats/legacy.ts).
 */
import { validationError } from '../../errors.js';
import { experimentsState } from '../../store/meta/experiments.js';
import { funnelsRunner } from '../insights/funnels/runner.js';
import { trendsRunner } from '../insights/trends/runner.js';
import type { QueryResult, RunnerContext } from '../query/context.js';
import type { QueryNode } from '../query/kinds.js';
import { queryResponse } from '../query/response.js';
import type { QueryRunner } from '../query/run.js';
import { bad, checkExperimentId, type Setup, setupOf } from './query.js';
import {
  continuousPosterior,
  countPosterior,
  credibleInterval,
  type FunnelsVariant,
  funnelPosterior,
  type Posterior,
  significance,
  type TrendsVariant,
  winProbabilities,
} from './stats/legacy.js';

type Json = Record<string, unknown>;

// Maths PostHog turns into `sum` for an experiment (a per-user average or percentile has no
// per-variant total to compare); `sum` and `hogql` are the continuous model, the rest counts.
const TO_SUM = ['avg', 'min', 'max', 'median', 'p75', 'p90', 'p95', 'p99'];
const CONTINUOUS = ['sum', 'hogql'];
// Maths whose per-day values cannot be added up: their totals come from one total-value run.
const NOT_ADDITIVE = ['dau', 'weekly_active', 'monthly_active', 'unique_session', 'unique_group', 'hogql'];

function checkInsight(raw: unknown, kind: 'TrendsQuery' | 'FunnelsQuery', attr: string): Json {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw bad(`${attr} must be a ${kind}`, attr);
  const q = raw as Json;
  if (q.kind !== kind) throw bad(`${attr}.kind must be "${kind}"`, attr);
  if (!Array.isArray(q.series) || q.series.length < 1)
    throw bad(`${attr}.series needs at least one entry`, attr);
  const runner = kind === 'TrendsQuery' ? trendsRunner : funnelsRunner;
  try {
    runner.check(q as QueryNode);
  } catch (e) {
    // Name the nested query in `attr`, so the client knows which of the queries is wrong.
    const err = e as { status?: number; detail?: string; attr?: string | null };
    if (err.status === 400 && typeof err.detail === 'string')
      throw validationError(err.detail, err.attr ? `${attr}__${err.attr}` : attr);
    throw e;
  }
  return q;
}

function checkTrendsNode(node: QueryNode): QueryNode {
  checkExperimentId(node);
  checkInsight(node.count_query, 'TrendsQuery', 'count_query');
  if (node.exposure_query !== undefined && node.exposure_query !== null)
    checkInsight(node.exposure_query, 'TrendsQuery', 'exposure_query');
  return node;
}

function checkFunnelsNode(node: QueryNode): QueryNode {
  checkExperimentId(node);
  const q = checkInsight(node.funnels_query, 'FunnelsQuery', 'funnels_query');
  if ((q.series as unknown[]).length < 2)
    throw bad('funnels_query needs at least two steps', 'funnels_query');
  return node;
}

/** The experiment's window in the project's time zone, as PostHog sets it on the insight. */
function dateRange(s: Setup, ctx: RunnerContext): Json {
  return {
    date_from: s.from ? s.from.setZone(ctx.timezone).toISO() : null,
    date_to: s.experiment.endDate ? s.to.setZone(ctx.timezone).toISO() : null,
    explicitDate: true,
  };
}

const variantFilter = (key: string, variants: string[]) => ({
  key,
  value: variants,
  operator: 'exact',
  type: 'event',
});

const clone = <T>(v: T): T => structuredClone(v);

function prepareCount(node: QueryNode, s: Setup, ctx: RunnerContext): Json {
  const q = clone(node.count_query as Json);
  const series = q.series as Json[];
  const first = series[0] as Json;
  if (typeof first.math === 'string' && TO_SUM.includes(first.math)) first.math = 'sum';
  q.trendsFilter = { display: 'ActionsLineGraphCumulative' };
  q.dateRange = dateRange(s, ctx);
  q.breakdownFilter = { breakdown: `$feature/${s.flagKey}`, breakdown_type: 'event' };
  q.properties = [variantFilter(`$feature/${s.flagKey}`, s.variants)];
  return q;
}

function prepareExposure(node: QueryNode, s: Setup, ctx: RunnerContext): Json {
  if (node.exposure_query) {
    const q = clone(node.exposure_query as Json);
    q.dateRange = dateRange(s, ctx);
    q.trendsFilter = { display: 'ActionsLineGraphCumulative' };
    q.breakdownFilter = { breakdown: `$feature/${s.flagKey}`, breakdown_type: 'event' };
    q.properties = [variantFilter(`$feature/${s.flagKey}`, s.variants)];
    return q;
  }
  // By default: unique users with the flag's `$feature_flag_called`, by the variant answered.
  return {
    kind: 'TrendsQuery',
    dateRange: dateRange(s, ctx),
    trendsFilter: { display: 'ActionsLineGraphCumulative' },
    breakdownFilter: { breakdown: '$feature_flag_response', breakdown_type: 'event' },
    series: [{ kind: 'EventsNode', event: '$feature_flag_called', math: 'dau' }],
    properties: [
      variantFilter('$feature_flag_response', s.variants),
      variantFilter('$feature_flag', [s.flagKey]),
    ],
    filterTestAccounts: (node.count_query as Json).filterTestAccounts === true,
  };
}

type Series = { breakdown_value?: unknown; count?: number; aggregated_value?: number };

/**
 * Per variant totals of a prepared trend. Additive maths read the cumulative run's last value;
 * the others (a person on two days is one person) ask the same trend as one total over the window.
 */
async function totals(
  q: Json,
  cumulative: Series[] | null,
  ctx: RunnerContext,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const math = ((q.series as Json[])[0] as Json).math;
  if (cumulative && !(typeof math === 'string' && NOT_ADDITIVE.includes(math))) {
    for (const r of cumulative) out.set(String(r.breakdown_value), Number(r.count ?? 0));
    return out;
  }
  const total = { ...q, trendsFilter: { display: 'BoldNumber' } };
  const run = (await trendsRunner.run(total as unknown as QueryNode, ctx)) as { results: Series[] };
  for (const r of run.results) out.set(String(r.breakdown_value), Number(r.aggregated_value ?? 0));
  return out;
}

/** PostHog's "no results" refusal: which of exposures, control and a test variant are missing. */
function noResults(errors: Record<string, boolean>): never {
  throw validationError(JSON.stringify(errors), null);
}

async function runTrends(node: QueryNode, ctx: RunnerContext): Promise<QueryResult> {
  const started = performance.now();
  const s = await setupOf(node, ctx);
  if (!s.from) throw bad('The experiment has not started: it has no exposures yet.', 'experiment_id');
  const countQuery = prepareCount(node, s, ctx);
  const exposureQuery = prepareExposure(node, s, ctx);
  const [countRun, exposures] = await Promise.all([
    trendsRunner.run(countQuery as QueryNode, ctx) as Promise<{ results: Series[] }>,
    totals(exposureQuery, null, ctx),
  ]);
  const counts = await totals(countQuery, countRun.results, ctx);
  const tests = s.variants.filter((v) => v !== 'control');
  const errors = {
    'no-exposures': exposures.size === 0,
    'no-control-variant': !counts.has('control'),
    'no-test-variant': !tests.some((v) => counts.has(v)),
  };
  if (Object.values(errors).some(Boolean)) noResults(errors);
  const controlExposure = exposures.get('control') ?? 0;
  const variants: TrendsVariant[] = ['control', ...tests]
    .filter((k) => counts.has(k))
    .map((key) => ({
      key,
      count: counts.get(key) ?? 0,
      exposure: key === 'control' ? 1 : controlExposure ? (exposures.get(key) ?? 0) / controlExposure : 0,
      absolute_exposure: exposures.get(key) ?? 0,
    }));
  const math = ((countQuery.series as Json[])[0] as Json).math;
  const model = typeof math === 'string' && CONTINUOUS.includes(math) ? continuousPosterior : countPosterior;
  const posteriors = variants.map(model);
  const verdict = compare(
    variants.map((v) => v.key),
    posteriors,
    variants.map((v) => v.absolute_exposure),
    variants.map((v) => (v.absolute_exposure ? v.count / v.absolute_exposure : 0)),
  );
  return queryResponse(
    {
      kind: 'ExperimentTrendsQuery',
      results: undefined,
      insight: countRun.results,
      count_query: countQuery,
      exposure_query: exposureQuery,
      variants,
      probability: verdict.probability,
      significant: verdict.code === 'significant',
      significance_code: verdict.code,
      stats_version: 2,
      // PostHog answers the expected loss in `p_value` for trends (1 when it is not computed).
      p_value: verdict.loss,
      credible_intervals: verdict.intervals,
    },
    { seconds: (performance.now() - started) / 1000, modifiers: node.modifiers as Json | undefined },
  );
}

function compare(keys: string[], posteriors: Posterior[], exposures: number[], rates: number[]) {
  const p = winProbabilities(posteriors);
  const { code, loss } = significance(exposures, rates, posteriors, p);
  const probability: Record<string, number> = {};
  const intervals: Record<string, [number, number]> = {};
  keys.forEach((k, i) => {
    probability[k] = p[i] as number;
    intervals[k] = credibleInterval(posteriors[i] as Posterior);
  });
  return { probability, code, loss, intervals };
}

type Step = { count?: number; breakdown_value?: unknown; order?: number };

async function runFunnels(node: QueryNode, ctx: RunnerContext): Promise<QueryResult> {
  const started = performance.now();
  const s = await setupOf(node, ctx);
  if (!s.from) throw bad('The experiment has not started: it has no exposures yet.', 'experiment_id');
  const q = clone(node.funnels_query as Json);
  q.dateRange = dateRange(s, ctx);
  q.breakdownFilter = { breakdown: `$feature/${s.flagKey}`, breakdown_type: 'event' };
  q.funnelsFilter = { ...((q.funnelsFilter as Json | undefined) ?? {}), layout: 'vertical' };
  const run = (await funnelsRunner.run(q as QueryNode, ctx)) as { results: Step[][] };
  const variantOf = (steps: Step[]) => {
    const bv = steps[0]?.breakdown_value;
    return String(Array.isArray(bv) ? bv[0] : bv);
  };
  const insight = (run.results ?? []).filter((steps) => s.variants.includes(variantOf(steps)));
  const tests = s.variants.filter((v) => v !== 'control');
  const errors = {
    'no-control-variant': !insight.some((steps) => variantOf(steps) === 'control'),
    'no-test-variant': !insight.some((steps) => tests.includes(variantOf(steps))),
  };
  if (Object.values(errors).some(Boolean)) noResults(errors);
  const byKey = new Map(insight.map((steps) => [variantOf(steps), steps]));
  const variants: FunnelsVariant[] = ['control', ...tests]
    .filter((k) => byKey.has(k))
    .map((key) => {
      const steps = byKey.get(key) as Step[];
      const total = Number(steps[0]?.count ?? 0);
      const success = steps.length > 1 ? Number(steps[steps.length - 1]?.count ?? 0) : 0;
      return { key, success_count: success, failure_count: total - success };
    });
  const posteriors = variants.map(funnelPosterior);
  const verdict = compare(
    variants.map((v) => v.key),
    posteriors,
    variants.map((v) => v.success_count + v.failure_count),
    variants.map((v) => v.success_count / Math.max(1, v.success_count + v.failure_count)),
  );
  return queryResponse(
    {
      kind: 'ExperimentFunnelsQuery',
      results: undefined,
      funnels_query: q,
      insight,
      variants,
      probability: verdict.probability,
      significant: verdict.code === 'significant',
      significance_code: verdict.code,
      stats_version: 2,
      expected_loss: verdict.loss,
      credible_intervals: verdict.intervals,
    },
    { seconds: (performance.now() - started) / 1000, modifiers: node.modifiers as Json | undefined },
  );
}

export const legacyExperimentRunners: Record<string, QueryRunner> = {
  ExperimentTrendsQuery: {
    check: checkTrendsNode,
    run: runTrends,
    staleness: { interval: 'minute' },
    metaState: (deps, teamId) => experimentsState(deps.meta, teamId),
  },
  ExperimentFunnelsQuery: {
    check: checkFunnelsNode,
    run: runFunnels,
    staleness: { interval: 'minute' },
    metaState: (deps, teamId) => experimentsState(deps.meta, teamId),
  },
};
