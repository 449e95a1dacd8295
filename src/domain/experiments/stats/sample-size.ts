/**
 * How many users an experiment needs before it launches: the textbook power formulas for a
 * two-sided test at significance `alpha` with power `power` (defaults 0.05 and 0.8). Pure and
 * dependency-free apart from the normal quantile, so the console computes it in the browser too.
 */
import { normalQuantile } from './distributions.js';

export interface PowerOptions {
  alpha?: number;
  power?: number;
}

const zOf = ({ alpha = 0.05, power = 0.8 }: PowerOptions) => ({
  a: normalQuantile(1 - alpha / 2),
  b: normalQuantile(power),
});

/**
 * Users per variant to detect a conversion rate moving from `baseline` to `baseline × (1 + mde)`
 * (mde relative, e.g. 0.1 for +10 %), two-proportion z-test with the pooled variance under H0:
 * n = (z_{1-α/2}·√(2·p̄·(1-p̄)) + z_{1-β}·√(p1·(1-p1) + p2·(1-p2)))² / (p2 - p1)², p̄ = (p1 + p2) / 2.
 * Null when no finite answer exists (a rate of 0 or 1, or a target past 100 %).
 */
export function proportionSampleSize(
  baseline: number,
  mde: number,
  options: PowerOptions = {},
): number | null {
  const p1 = baseline;
  const p2 = baseline * (1 + mde);
  if (!(p1 > 0 && p1 < 1 && p2 > 0 && p2 < 1) || p1 === p2) return null;
  const { a, b } = zOf(options);
  const pBar = (p1 + p2) / 2;
  const root = a * Math.sqrt(2 * pBar * (1 - pBar)) + b * Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2));
  return Math.ceil((root * root) / (p2 - p1) ** 2);
}

/**
 * Users per variant to detect a mean moving from `mean` to `mean × (1 + mde)` when a user's value
 * has standard deviation `sd` (two-sample z approximation of the t-test, equal groups):
 * n = 2·(z_{1-α/2} + z_{1-β})²·σ² / δ², δ = mean × mde.
 */
export function meanSampleSize(
  mean: number,
  sd: number,
  mde: number,
  options: PowerOptions = {},
): number | null {
  const delta = Math.abs(mean * mde);
  if (!(delta > 0) || !(sd > 0) || !Number.isFinite(sd)) return null;
  const { a, b } = zOf(options);
  return Math.ceil((2 * (a + b) ** 2 * sd * sd) / (delta * delta));
}

/** Days to reach `perVariant` users in each of `variants` variants at `dailyUsers` new users a day. */
export function runningDays(perVariant: number, variants: number, dailyUsers: number): number | null {
  if (!(dailyUsers > 0) || !(perVariant > 0)) return null;
  return Math.ceil((perVariant * variants) / dailyUsers);
}
