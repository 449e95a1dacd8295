import { type FunctionTable, table } from './define.js';

const agg = { aggregate: true } as const;
/** `quantileX(level)(x)`: the level is a parameter. */
const level = { aggregate: true, minParams: 1, maxParams: 1 } as const;
/** `quantilesX(l1, l2, ...)(x)`. */
const levels = { aggregate: true, minParams: 1 } as const;

export const QUANTILES: FunctionTable = table({
  median: [1, 1, agg],
  medianExact: [1, 1, agg],
  medianExactLow: [1, 1, agg],
  medianExactHigh: [1, 1, agg],
  medianExactWeighted: [2, 2, agg],
  medianTiming: [1, 1, agg],
  medianTimingWeighted: [2, 2, agg],
  medianDeterministic: [2, 2, agg],
  medianTDigest: [1, 1, agg],
  medianTDigestWeighted: [2, 2, agg],
  medianBFloat16: [1, 1, agg],
  medianBFloat16Weighted: [2, 2, agg],
  medianInterpolatedWeighted: [2, 2, agg],
  quantile: [1, 1, level],
  quantileExact: [1, 1, level],
  quantileExactLow: [1, 1, level],
  quantileExactHigh: [1, 1, level],
  quantileExactExclusive: [1, 1, level],
  quantileExactInclusive: [1, 1, level],
  quantileExactWeighted: [2, 2, level],
  quantileInterpolatedWeighted: [2, 2, level],
  quantileTiming: [1, 1, level],
  quantileTimingWeighted: [2, 2, level],
  quantileDeterministic: [2, 2, level],
  quantileTDigest: [1, 1, level],
  quantileTDigestWeighted: [2, 2, level],
  quantileBFloat16: [1, 1, level],
  quantileBFloat16Weighted: [2, 2, level],
  quantileDD: [1, 1, { aggregate: true, minParams: 2, maxParams: 2 }],
  quantileGK: [1, 1, { aggregate: true, minParams: 2, maxParams: 2 }],
  quantiles: [1, 1, levels],
  quantilesExact: [1, 1, levels],
  quantilesExactLow: [1, 1, levels],
  quantilesExactHigh: [1, 1, levels],
  quantilesExactWeighted: [2, 2, levels],
  quantilesTiming: [1, 1, levels],
  quantilesTDigest: [1, 1, levels],
  quantilesBFloat16: [1, 1, levels],
  quantilesDeterministic: [2, 2, levels],
});
