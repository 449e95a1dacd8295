import { parseSelect } from '../../hogql/parse.js';
import { propertiesToExpr } from '../../hogql/property-filters.js';
import { insightRunners } from '../insights/trends/registry.js';
import type { QueryResult, RunnerContext } from '../query/context.js';
import type { QueryNode } from '../query/kinds.js';
import { queryResponse } from '../query/response.js';
import type { QueryRunner } from '../query/run.js';
import { runSelect } from '../query/run-select.js';
import { at_, checkWebNode, invalid, periods, type WebNode } from './common.js';
import { cleanedPath, type PathCleaning, pathCleaningOf } from './path-cleaning.js';

export const VITALS_METRICS = ['INP', 'LCP', 'CLS', 'FCP'] as const;
export const VITALS_PERCENTILES: Record<string, number> = { p75: 0.75, p90: 0.9, p99: 0.99 };
const BANDS = ['good', 'needs_improvements', 'poor'] as const;
/** PostHog's upper bound of the poor band ("virtually infinity"). */
const POOR_CEILING = 100_000_000;
/** Paths per band, as PostHog answers. */
const PER_BAND = 20;

/**
 * WebVitalsQuery wraps a TrendsQuery of the four metrics (`source`): PostHog answers it as that
 * trends query, so Burrow runs the source with the trends runner.
 */
// Read when used: the registries import each other at load.
const trendsRunner = () => insightRunners.TrendsQuery as QueryRunner;
const sourceOf = (node: QueryNode) => (node as { source?: unknown }).source as QueryNode;

export const webVitalsRunner: QueryRunner = {
  check: (node) => {
    checkWebNode(node as WebNode);
    const source = sourceOf(node);
    if (
      source == null ||
      typeof source !== 'object' ||
      Array.isArray(source) ||
      source.kind !== 'TrendsQuery'
    )
      throw invalid('source must be a TrendsQuery (the web vitals series)', 'source');
    let checked: QueryNode;
    try {
      checked = trendsRunner().check(source);
    } catch (err) {
      // The source's own field names, under `source`.
      if (err && typeof err === 'object' && 'attr' in err) {
        const e = err as { attr: string | null };
        e.attr = e.attr ? `source__${e.attr}` : 'source';
      }
      throw err;
    }
    // The source as the trends runner checked it (it may fill defaults the run relies on).
    return { ...node, source: checked };
  },
  run: (node, ctx) => trendsRunner().run(sourceOf(node), ctx),
  hints: (node, team) => trendsRunner().hints?.(sourceOf(node), team) ?? { interval: 'day' },
};

interface PathBreakdownNode extends WebNode {
  metric: string;
  percentile: string;
  thresholds: [number, number];
  doPathCleaning?: boolean;
}

function checkPathBreakdown(node: PathBreakdownNode): PathBreakdownNode {
  checkWebNode(node);
  if (!VITALS_METRICS.includes(node.metric as (typeof VITALS_METRICS)[number]))
    throw invalid(`metric must be one of ${VITALS_METRICS.join(', ')}`, 'metric');
  if (typeof node.percentile !== 'string' || !Object.hasOwn(VITALS_PERCENTILES, node.percentile))
    throw invalid(`percentile must be one of ${Object.keys(VITALS_PERCENTILES).join(', ')}`, 'percentile');
  const t = node.thresholds;
  if (
    !Array.isArray(t) ||
    t.length !== 2 ||
    !t.every((x) => typeof x === 'number' && Number.isFinite(x)) ||
    (t[0] as number) > (t[1] as number)
  )
    throw invalid('thresholds must be [good, poor]: two finite numbers, good <= poor', 'thresholds');
  return node;
}

/**
 * WebVitalsPathBreakdownQuery: the metric's percentile per path over `$web_vitals` events in the
 * period, split into PostHog's bands: good (-1, good], needs improvements (good, poor], poor
 * (poor, 1e8]; at most 20 paths per band, lowest value first.
 */
export async function runVitalsPathBreakdown(
  node: PathBreakdownNode,
  ctx: RunnerContext,
  cleaning: PathCleaning,
): Promise<QueryResult> {
  const p = periods({ ...node, compareFilter: null }, ctx);
  const q = VITALS_PERCENTILES[node.percentile] as number;
  const [good, poor] = node.thresholds;
  const bounds: Record<(typeof BANDS)[number], [number, number]> = {
    good: [-1, good],
    needs_improvements: [good, poor],
    poor: [poor, POOR_CEILING],
  };
  const path = cleanedPath('properties.$pathname', node.doPathCleaning === true ? cleaning : []);
  // Event and person filters only, as PostHog (session filters do not apply here).
  const props = (node.properties ?? []) as unknown[];
  const eventProps = (Array.isArray(props) ? props : [props]).filter(
    (f) => !f || typeof f !== 'object' || (f as { type?: unknown }).type !== 'session',
  );
  const tests =
    node.filterTestAccounts === true && Array.isArray(ctx.testAccountFilters) ? ctx.testAccountFilters : [];
  const filters = [...eventProps, ...tests];
  const band = (name: (typeof BANDS)[number]) => {
    const [lo, hi] = bounds[name];
    return `(SELECT '${name}' AS band, path, value FROM (
      SELECT {path} AS path, quantile(${q})(toFloat(properties.$web_vitals_${node.metric}_value)) AS value
      FROM events
      WHERE event = '$web_vitals' AND timestamp >= ${at_(p.from)} AND timestamp < ${at_(p.to)} AND {filters}
      GROUP BY path HAVING path IS NOT NULL AND value > ${lo} AND value <= ${hi}
      ORDER BY value ASC, path ASC LIMIT ${PER_BAND}))`;
  };
  const text = `${BANDS.map(band).join(' UNION ALL ')}`;
  const run = await runSelect(parseSelect(text), ctx, {
    modifiers: node.modifiers,
    exprs: { filters: propertiesToExpr(filters as never), path },
  });
  const result = Object.fromEntries(
    BANDS.map((b) => [
      b,
      run.rows
        .filter((r) => r[0] === b)
        .map((r) => ({ path: r[1], value: Number(r[2]) }))
        .sort((x, y) => x.value - y.value || (String(x.path) < String(y.path) ? -1 : 1)),
    ]),
  );
  return queryResponse(
    { results: [result], hogql: run.hogql },
    { seconds: run.seconds, modifiers: node.modifiers },
  );
}

export const webVitalsPathBreakdownRunner: QueryRunner = {
  check: (node) => checkPathBreakdown(node as PathBreakdownNode),
  run: async (node, ctx) => runVitalsPathBreakdown(node as PathBreakdownNode, ctx, pathCleaningOf(ctx)),
  staleness: { interval: 'minute' },
};
