import { as, CI, call, type FunctionTable, table } from './define.js';
import type { CallContext } from './types.js';

const agg = { aggregate: true } as const;
const aggCI = { aggregate: true, ...CI } as const;
/** Parametric aggregate: `name(params)(args)`. */
const p = (minParams: number, maxParams: number | undefined = minParams) =>
  ({ aggregate: true, minParams, ...(maxParams === undefined ? {} : { maxParams }) }) as const;

/**
 * Base aggregations. Combinator spellings (`countIf`, `sumArray`, `uniqState`, `argMaxMerge`, ...)
 * are derived from these by ./combinators.ts rather than listed.
 */
export const AGGREGATIONS: FunctionTable = table({
  count: [0, 1, aggCI],
  countDistinct: [1, 1, agg],
  min: [1, 1, aggCI],
  max: [1, 1, aggCI],
  sum: [1, 1, aggCI],
  avg: [1, 1, aggCI],
  any: [1, 1, agg],
  anyLast: [1, 1, agg],
  anyHeavy: [1, 1, agg],
  argMin: [2, 2, agg],
  argMax: [2, 2, agg],
  avgWeighted: [2, 2, agg],
  sumWithOverflow: [1, 1, agg],
  sumKahan: [1, 1, agg],
  deltaSum: [1, 1, agg],
  deltaSumTimestamp: [2, 2, agg],
  sumMap: [1, 2, agg],
  minMap: [1, 2, agg],
  maxMap: [1, 2, agg],
  uniq: [1, null, agg],
  uniqExact: [1, null, agg],
  uniqHLL12: [1, null, agg],
  uniqCombined: [1, null, p(0, 1)],
  uniqCombined64: [1, null, p(0, 1)],
  uniqUpTo: [1, null, p(1)],
  groupArray: [1, 1, p(0, 1)],
  groupUniqArray: [1, 1, p(0, 1)],
  groupArrayInsertAt: [2, 2, p(0, 2)],
  groupArrayMovingAvg: [1, 1, p(0, 1)],
  groupArrayMovingSum: [1, 1, p(0, 1)],
  groupArraySample: [1, 1, p(1, 2)],
  groupArrayLast: [1, 1, p(1)],
  groupArraySorted: [1, 1, p(1)],
  groupConcat: [1, 1, p(0, 2)],
  groupBitAnd: [1, 1, agg],
  groupBitOr: [1, 1, agg],
  groupBitXor: [1, 1, agg],
  groupBitmap: [1, 1, agg],
  groupBitmapAnd: [1, 1, agg],
  groupBitmapOr: [1, 1, agg],
  groupBitmapXor: [1, 1, agg],
  topK: [1, 1, p(1)],
  topKWeighted: [2, 2, p(1)],
  // statistics
  stddevPop: [1, 1, agg],
  stddevSamp: [1, 1, agg],
  varPop: [1, 1, agg],
  varSamp: [1, 1, agg],
  covarPop: [2, 2, agg],
  covarSamp: [2, 2, agg],
  corr: [2, 2, agg],
  skewPop: [1, 1, agg],
  skewSamp: [1, 1, agg],
  kurtPop: [1, 1, agg],
  kurtSamp: [1, 1, agg],
  simpleLinearRegression: [2, 2, agg],
  contingency: [2, 2, agg],
  cramersV: [2, 2, agg],
  cramersVBiasCorrected: [2, 2, agg],
  theilsU: [2, 2, agg],
  studentTTest: [2, 2, p(0, 1)],
  welchTTest: [2, 2, p(0, 1)],
  mannWhitneyUTest: [2, 2, p(0, 2)],
  maxIntersections: [2, 2, agg],
  maxIntersectionsPosition: [2, 2, agg],
  exponentialMovingAverage: [2, 2, p(1)],
  // funnels and sequences
  windowFunnel: [2, 33, p(1, 4)],
  retention: [2, 32, agg],
  sequenceMatch: [3, 33, p(1)],
  sequenceCount: [3, 33, p(1)],
});

/** PostgreSQL-style and HogQL-only aggregations. */
export const AGGREGATION_REMAPS: FunctionTable = table({
  array_agg: [1, 1, { ...agg, ...as('groupArray') }],
  avgArray: [1, 1, { ...agg, ...as('avgArrayOrNull') }],
  medianArray: [1, 1, { ...agg, ...as('medianArrayOrNull') }],
  json_agg: [
    1,
    1,
    { ...agg, clickhouse: 'groupArray', print: (c) => `toJSONString(${call('groupArray', c.args)})` },
  ],
  string_agg: [2, 2, { ...agg, clickhouse: 'groupArray', print: printStringAgg }],
  every: [1, 1, { ...agg, clickhouse: 'min', print: (c) => `toBool(${call('min', c.args)})` }],
});

function printStringAgg(ctx: CallContext): string {
  return call('arrayStringConcat', [call('groupArray', [ctx.args[0]!]), ctx.args[1]!]);
}
