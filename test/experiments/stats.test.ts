import betaCdfOracle from '@stdlib/stats-base-dists-beta-cdf';
import normalCdfOracle from '@stdlib/stats-base-dists-normal-cdf';
import normalQuantileOracle from '@stdlib/stats-base-dists-normal-quantile';
import tCdfOracle from '@stdlib/stats-base-dists-t-cdf';
import { describe, expect, it } from 'vitest';
import { bayesian, frequentist, type VariantStats } from '../../src/domain/experiments/stats/compare.js';
import {
  betaCdf,
  normalCdf,
  normalQuantile,
  tCdf,
} from '../../src/domain/experiments/stats/distributions.js';

/** Sufficient statistics of a list of values. */
const stats = (key: string, values: number[]): VariantStats => ({
  key,
  number_of_samples: values.length,
  sum: values.reduce((s, v) => s + v, 0),
  sum_squares: values.reduce((s, v) => s + v * v, 0),
});
const conversions = (key: string, n: number, k: number): VariantStats => ({
  key,
  number_of_samples: n,
  sum: k,
  sum_squares: k,
});

describe('experiment distributions against @stdlib', () => {
  it('t CDF matches @stdlib and the closed forms for df 1 and 2', () => {
    for (const df of [1, 1.5, 2, 3.7, 10, 57.3, 1000])
      for (const t of [-8, -2.5, -1, -0.1, 0, 0.3, 1.96, 4, 12])
        expect(tCdf(t, df)).toBeCloseTo(tCdfOracle(t, df), 10);
    for (const t of [-3, -0.5, 0.7, 5]) {
      expect(tCdf(t, 1)).toBeCloseTo(0.5 + Math.atan(t) / Math.PI, 12);
      expect(tCdf(t, 2)).toBeCloseTo(0.5 + t / (2 * Math.sqrt(2 + t * t)), 12);
    }
  });
  it('beta CDF, normal CDF and quantile match @stdlib', () => {
    for (const [a, b] of [
      [1, 1],
      [0.5, 0.5],
      [2, 30],
      [150, 40],
    ] as const)
      for (const x of [0.01, 0.2, 0.5, 0.77, 0.99])
        expect(betaCdf(x, a, b)).toBeCloseTo(betaCdfOracle(x, a, b), 10);
    for (const x of [-6, -1.96, -0.2, 0, 1, 3.1])
      expect(normalCdf(x)).toBeCloseTo(normalCdfOracle(x, 0, 1), 12);
    for (const p of [1e-6, 0.01, 0.025, 0.3, 0.5, 0.975, 0.999])
      expect(normalQuantile(p)).toBeCloseTo(normalQuantileOracle(p, 0, 1), 7);
  });
});

describe('experiment comparisons', () => {
  it("frequentist: Welch's test with unequal variances, by hand", () => {
    const c = stats('control', [10, 12, 9, 11, 13, 10, 12, 11]);
    const t = stats('test', [14, 20, 9, 17, 22, 11, 19, 16, 25, 13]);
    const r = frequentist(c, t);
    // Closed form computed here from the raw values.
    const mean = (v: VariantStats) => v.sum / v.number_of_samples;
    const variance = (v: VariantStats) =>
      (v.sum_squares - v.number_of_samples * mean(v) ** 2) / (v.number_of_samples - 1);
    const vc = variance(c) / 8;
    const vt = variance(t) / 10;
    const df = (vc + vt) ** 2 / (vc ** 2 / 7 + vt ** 2 / 9);
    const stat = (mean(t) - mean(c)) / Math.sqrt(vc + vt);
    expect(r.p_value).toBeCloseTo(2 * (1 - tCdfOracle(stat, df)), 9);
    expect(r.delta).toBeCloseTo((mean(t) - mean(c)) / mean(c), 12);
    expect(r.significant).toBe((r.p_value ?? 1) < 0.05);
    const [lo, hi] = r.confidence_interval ?? [0, 0];
    expect(lo).toBeLessThan(r.delta ?? 0);
    expect(hi).toBeGreaterThan(r.delta ?? 0);
    // The interval excludes 0 exactly when p < 0.05.
    expect(lo > 0).toBe(r.significant);
  });
  it('bayesian: chance to win is Φ(diff/se) and flips sign symmetrically', () => {
    const c = conversions('control', 1000, 100);
    const t = conversions('test', 1000, 130);
    const r = bayesian(c, t);
    const se = Math.sqrt((0.1 * 0.9 * 1000) / 999 / 1000 + (0.13 * 0.87 * 1000) / 999 / 1000);
    expect(r.chance_to_win).toBeCloseTo(normalCdfOracle(0.03 / se, 0, 1), 6);
    expect(r.chance_to_win).toBeGreaterThan(0.95);
    expect(r.significant).toBe(true);
    const back = bayesian(t, c);
    expect(back.chance_to_win).toBeLessThan(0.05);
  });
  it('edge cases: tiny samples, zero conversions, a variant without exposures, identical data', () => {
    expect(frequentist(conversions('control', 1, 1), conversions('test', 1, 0)).p_value).toBeNull();
    expect(frequentist(conversions('control', 100, 10), conversions('test', 0, 0))).toMatchObject({
      p_value: null,
      significant: false,
    });
    expect(bayesian(conversions('control', 0, 0), conversions('test', 100, 5)).chance_to_win).toBeNull();
    // Zero conversions in control: no relative change to speak of.
    expect(frequentist(conversions('control', 100, 0), conversions('test', 100, 5)).delta).toBeNull();
    // Zero conversions in test: a definite drop with a finite p-value.
    const drop = frequentist(conversions('control', 200, 20), conversions('test', 200, 0));
    expect(drop.delta).toBe(-1);
    expect(drop.p_value).toBeLessThan(0.001);
    const same = frequentist(conversions('control', 500, 50), conversions('test', 500, 50));
    expect(same.p_value).toBeCloseTo(1, 12);
    expect(bayesian(conversions('control', 500, 50), conversions('test', 500, 50)).chance_to_win).toBeCloseTo(
      0.5,
      12,
    );
  });
});
