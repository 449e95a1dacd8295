import { normalCdf, normalQuantile, tCdf } from './distributions.js';

/** One variant's sufficient statistics: exposed users, and the sum and sum of squares of their values. */
export interface VariantStats {
  key: string;
  number_of_samples: number;
  sum: number;
  sum_squares: number;
}

export interface FrequentistResult {
  key: string;
  method: 'frequentist';
  /** Relative change of the mean versus control, and its confidence interval (same scale). */
  delta: number | null;
  confidence_interval: [number, number] | null;
  p_value: number | null;
  significant: boolean;
}

export interface BayesianResult {
  key: string;
  method: 'bayesian';
  delta: number | null;
  credible_interval: [number, number] | null;
  /** Posterior probability that the variant's mean exceeds control's. */
  chance_to_win: number | null;
  significant: boolean;
}

function moments(s: VariantStats): { mean: number; variance: number } | null {
  if (s.number_of_samples < 2) return null;
  const mean = s.sum / s.number_of_samples;
  const variance = Math.max(
    0,
    (s.sum_squares - s.number_of_samples * mean * mean) / (s.number_of_samples - 1),
  );
  return { mean, variance };
}

/**
 * Welch's t-test on the difference of means (unequal variances allowed), reported relative to
 * control's mean. Too few samples (or a zero control mean) gives nulls, not a guess.
 */
export function frequentist(control: VariantStats, test: VariantStats, alpha = 0.05): FrequentistResult {
  const none: FrequentistResult = {
    key: test.key,
    method: 'frequentist',
    delta: null,
    confidence_interval: null,
    p_value: null,
    significant: false,
  };
  const c = moments(control);
  const t = moments(test);
  if (!c || !t || c.mean === 0) return none;
  const vc = c.variance / control.number_of_samples;
  const vt = t.variance / test.number_of_samples;
  const se = Math.sqrt(vc + vt);
  const diff = t.mean - c.mean;
  if (se === 0)
    return { ...none, delta: diff / c.mean, p_value: diff === 0 ? 1 : 0, significant: diff !== 0 };
  const df =
    (vc + vt) ** 2 / (vc ** 2 / (control.number_of_samples - 1) + vt ** 2 / (test.number_of_samples - 1));
  const stat = diff / se;
  const p = 2 * (1 - tCdf(Math.abs(stat), df));
  const crit = tQuantile(1 - alpha / 2, df);
  return {
    key: test.key,
    method: 'frequentist',
    delta: diff / c.mean,
    confidence_interval: [(diff - crit * se) / c.mean, (diff + crit * se) / c.mean],
    p_value: p,
    significant: p < alpha,
  };
}

/** The t quantile by bisection on tCdf (bounded: 200 steps). */
export function tQuantile(p: number, df: number): number {
  let lo = -1e3;
  let hi = 1e3;
  for (let i = 0; i < 200 && hi - lo > 1e-12; i++) {
    const mid = (lo + hi) / 2;
    if (tCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * Bayesian comparison with a flat prior and the normal approximation of each mean's posterior:
 * the difference is N(diff, se²), so the chance to win is Φ(diff / se) and the credible interval
 * diff ± z·se, reported relative to control's mean.
 */
export function bayesian(control: VariantStats, test: VariantStats, ciLevel = 0.95): BayesianResult {
  const none: BayesianResult = {
    key: test.key,
    method: 'bayesian',
    delta: null,
    credible_interval: null,
    chance_to_win: null,
    significant: false,
  };
  const c = moments(control);
  const t = moments(test);
  if (!c || !t || c.mean === 0) return none;
  const se = Math.sqrt(c.variance / control.number_of_samples + t.variance / test.number_of_samples);
  const diff = t.mean - c.mean;
  const win = se === 0 ? (diff > 0 ? 1 : diff < 0 ? 0 : 0.5) : normalCdf(diff / se);
  const z = normalQuantile(1 - (1 - ciLevel) / 2);
  return {
    key: test.key,
    method: 'bayesian',
    delta: diff / c.mean,
    credible_interval: [(diff - z * se) / c.mean, (diff + z * se) / c.mean],
    chance_to_win: win,
    significant: win > ciLevel || win < 1 - ciLevel,
  };
}
