/**
 * The statistics of PostHog's legacy experiment queries (ExperimentTrendsQuery /
 * ExperimentFunnelsQuery, "stats version 2"): each variant's posterior, the chance each one wins,
 * the expected loss of picking the best and 95 % credible intervals.
 *
 * PostHog draws 10 000 Monte Carlo samples per variant; Burrow integrates the same posteriors
 * numerically instead, so an answer is the same on every call (PostHog's differ by sampling noise,
 * about ±0.005 on a probability).
 */
import { betaCdf, betaPdf, gammaCdf, gammaPdf, quantileOf, tCdf, tPdf } from './distributions.js';

/** A count (trend) variant: events, exposure relative to control, exposed users. */
export interface TrendsVariant {
  key: string;
  count: number;
  exposure: number;
  absolute_exposure: number;
}

/** A funnel variant: users who converted and who did not. */
export interface FunnelsVariant {
  key: string;
  success_count: number;
  failure_count: number;
}

/** A posterior for integration: density, CDF, the range holding all but ~1e-12 of its mass. */
export interface Posterior {
  pdf(x: number): number;
  cdf(x: number): number;
  lo: number;
  hi: number;
  /** The value a sample stands for on the metric's scale (the continuous model works in logs). */
  toValue(x: number): number;
  /** d toValue / dx, for the expected loss on the metric's scale. */
  slope(x: number): number;
}

// PostHog's constants (products/experiments hogql_queries): minimum exposures per variant,
// the win probability and the expected loss that make a result significant.
export const FF_DISTRIBUTION_THRESHOLD = 100;
export const MIN_PROBABILITY_FOR_SIGNIFICANCE = 0.9;
export const EXPECTED_LOSS_SIGNIFICANCE_LEVEL = 0.01;
const PRIOR = 1; // Gamma(1, 1) for counts, Beta(1, 1) for conversions
const LOG_VARIANCE = 0.75; // the continuous model's fixed variance in log space
const EPSILON = 1e-10;
const SPAN = 14; // standard deviations each side: beyond, less than 1e-40 of the mass (normal tails)

const identity = { toValue: (x: number) => x, slope: () => 1 };

/** Gamma(1 + count, 1 + exposed users): the Poisson rate of events per exposed user. */
export function countPosterior(v: TrendsVariant): Posterior {
  const shape = PRIOR + v.count;
  const rate = PRIOR + v.absolute_exposure;
  const mean = shape / rate;
  const sd = Math.sqrt(shape) / rate;
  return {
    pdf: (x) => gammaPdf(x, shape, rate),
    cdf: (x) => gammaCdf(x, shape, rate),
    lo: Math.max(0, mean - SPAN * sd),
    hi: mean + SPAN * sd + 50 / rate, // small shapes are skewed: a longer right tail
    ...identity,
  };
}

/** Beta(1 + successes, 1 + failures): the conversion rate. */
export function funnelPosterior(v: FunnelsVariant): Posterior {
  const a = PRIOR + v.success_count;
  const b = PRIOR + v.failure_count;
  const mean = a / (a + b);
  const sd = Math.sqrt((a * b) / ((a + b) ** 2 * (a + b + 1)));
  return {
    pdf: (x) => betaPdf(x, a, b),
    cdf: (x) => betaCdf(x, a, b),
    lo: Math.max(0, mean - SPAN * sd),
    hi: Math.min(1, mean + SPAN * sd),
    ...identity,
  };
}

/**
 * The continuous model (a `sum` trend): the log of the per-user mean under a Normal-Inverse-Gamma
 * prior (μ0 0, κ0 1, α0 1, β0 1) with a fixed log variance of 0.75, whose posterior is a Student t.
 */
export function continuousPosterior(v: TrendsVariant): Posterior {
  const n = v.absolute_exposure;
  const logMean = Math.log((n > 0 ? v.count / n : 0) + EPSILON);
  const kappa = 1 + n;
  const mu = (n * logMean) / kappa;
  const alpha = 1 + n / 2;
  const beta = 1 + 0.5 * n * LOG_VARIANCE;
  const df = 2 * alpha;
  const scale = Math.sqrt(beta / (kappa * alpha));
  // A t with df ≥ 2 has heavier tails than a normal: widen the range accordingly.
  const span = SPAN * (df < 30 ? 6 : 1.5);
  return {
    pdf: (x) => tPdf((x - mu) / scale, df) / scale,
    cdf: (x) => tCdf((x - mu) / scale, df),
    lo: mu - span * scale,
    hi: mu + span * scale,
    toValue: (x) => Math.exp(x) - EPSILON,
    slope: (x) => Math.exp(x),
  };
}

const STEPS = 4000; // Simpson intervals (even)

/** ∫ f(x) dx over [lo, hi] by Simpson's rule. */
function simpson(f: (x: number) => number, lo: number, hi: number, n = STEPS): number {
  if (!(hi > lo)) return 0;
  const h = (hi - lo) / n;
  let s = f(lo) + f(hi);
  for (let i = 1; i < n; i++) s += (i % 2 ? 4 : 2) * f(lo + i * h);
  return (s * h) / 3;
}

/**
 * Index 0: the chance control beats every test variant, ∫ f_C(x) Π F_Ti(x) dx. Index i: the
 * chance test variant i beats control, ∫ f_Ti(x) F_C(x) dx. As PostHog reports them.
 */
export function winProbabilities(posteriors: Posterior[]): number[] {
  const [control, ...tests] = posteriors as [Posterior, ...Posterior[]];
  const clamp = (p: number) => Math.min(1, Math.max(0, p));
  const out = [
    clamp(
      simpson((x) => control.pdf(x) * tests.reduce((prod, t) => prod * t.cdf(x), 1), control.lo, control.hi),
    ),
  ];
  for (const t of tests) out.push(clamp(simpson((x) => t.pdf(x) * control.cdf(x), t.lo, t.hi)));
  return out;
}

/**
 * The expected loss of choosing `target`: E[max(0, max(others) − target)] on the metric's scale.
 * With M the best of the others, E[(g(M) − g(X))⁺] = ∫ f_X(x) ∫ₓ (1 − F_M(m)) g′(m) dm dx: the
 * inner integral is accumulated once from the top of a grid shared by all posteriors.
 */
export function expectedLoss(target: Posterior, others: Posterior[]): number {
  const all = [target, ...others];
  const lo = Math.min(...all.map((p) => p.lo));
  const hi = Math.max(...all.map((p) => p.hi));
  const n = STEPS * 2;
  const h = (hi - lo) / n;
  const xs = Array.from({ length: n + 1 }, (_, i) => lo + i * h);
  const tail = xs.map((x) => (1 - others.reduce((prod, p) => prod * p.cdf(x), 1)) * target.slope(x));
  const inner = new Array<number>(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--)
    inner[i] = (inner[i + 1] as number) + ((tail[i] as number) + (tail[i + 1] as number)) * (h / 2);
  // Simpson's weights outside (n is even); the inner integral is smooth, its trapezoids suffice.
  let loss = 0;
  for (let i = 0; i <= n; i++) {
    const w = i === 0 || i === n ? 1 : i % 2 ? 4 : 2;
    loss += w * target.pdf(xs[i] as number) * (inner[i] as number);
  }
  return Math.max(0, (loss * h) / 3);
}

/** The central credible interval (default 95 %) of the posterior, on the metric's scale. */
export function credibleInterval(p: Posterior, level = 0.95): [number, number] {
  const tail = (1 - level) / 2;
  const lo = quantileOf(p.cdf, tail, p.lo, p.hi);
  const hi = quantileOf(p.cdf, 1 - tail, p.lo, p.hi);
  return [Math.max(0, p.toValue(lo)), Math.max(0, p.toValue(hi))];
}

export type SignificanceCode = 'significant' | 'not_enough_exposure' | 'low_win_probability' | 'high_loss';

/**
 * PostHog's verdict: every variant needs 100 exposures; then the best win probability must reach
 * 0.9, and the expected loss of the variant with the best observed rate must stay under 0.01.
 * Answers the code and the expected loss (1 when it is not computed, as PostHog answers).
 */
export function significance(
  exposures: number[],
  rates: number[],
  posteriors: Posterior[],
  probabilities: number[],
): { code: SignificanceCode; loss: number } {
  if (exposures.some((n) => n < FF_DISTRIBUTION_THRESHOLD)) return { code: 'not_enough_exposure', loss: 1 };
  if (Math.max(...probabilities) < MIN_PROBABILITY_FOR_SIGNIFICANCE)
    return { code: 'low_win_probability', loss: 1 };
  let best = 0;
  rates.forEach((r, i) => {
    if (r > (rates[best] as number)) best = i;
  });
  const loss = expectedLoss(
    posteriors[best] as Posterior,
    posteriors.filter((_, i) => i !== best),
  );
  return { code: loss >= EXPECTED_LOSS_SIGNIFICANCE_LEVEL ? 'high_loss' : 'significant', loss };
}
