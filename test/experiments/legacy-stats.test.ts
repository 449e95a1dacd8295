import { describe, expect, it } from 'vitest';
import {
  countPosterior,
  credibleInterval,
  expectedLoss,
  funnelPosterior,
  significance,
  winProbabilities,
} from '../../src/domain/experiments/stats/legacy.js';

/**
 * The legacy queries' statistics on cases with known answers: exponential posteriors (no events:
 * Gamma with shape 1) whose win probabilities and expected loss have closed forms, zero
 * conversions, tiny samples and the significance rule's thresholds.
 */
const trend = (key: string, count: number, exposed: number) => ({
  key,
  count,
  exposure: 1,
  absolute_exposure: exposed,
});
const funnel = (key: string, success: number, failure: number) => ({
  key,
  success_count: success,
  failure_count: failure,
});

describe('legacy experiment statistics', () => {
  it('three variants with no events: exponential posteriors, closed-form probabilities', () => {
    // Rates 10 (control), 5 and 20: λ ~ Exp(rate). P(C > T1 and C > T2) =
    // E[(1 − e^{−5C})(1 − e^{−20C})] = 1 − 10/15 − 10/30 + 10/35; P(Ti > C) = 10 / (10 + bi).
    const p = winProbabilities(
      [trend('control', 0, 9), trend('a', 0, 4), trend('b', 0, 19)].map(countPosterior),
    );
    expect(p[0]).toBeCloseTo(1 - 10 / 15 - 10 / 30 + 10 / 35, 7);
    expect(p[1]).toBeCloseTo(10 / 15, 7);
    expect(p[2]).toBeCloseTo(10 / 30, 7);
  });

  it('expected loss of exponentials: E[(X − Y)⁺] = b / (a (a + b)) for X ~ Exp(a), Y ~ Exp(b)', () => {
    // Choosing Y (rate 20) when X (rate 5) is the alternative: E[(X − Y)⁺] = 20 / (5 · 25).
    const loss = expectedLoss(countPosterior(trend('y', 0, 19)), [countPosterior(trend('x', 0, 4))]);
    expect(loss).toBeCloseTo(20 / (5 * 25), 5);
  });

  it('zero conversions: Beta(1, 1 + n), interval from the closed-form CDF 1 − (1 − x)^(n+1)', () => {
    const [lo, hi] = credibleInterval(funnelPosterior(funnel('control', 0, 49)));
    expect(1 - (1 - lo) ** 50).toBeCloseTo(0.025, 8);
    expect(1 - (1 - hi) ** 50).toBeCloseTo(0.975, 8);
    // Both with none: a coin toss.
    const p = winProbabilities([funnel('control', 0, 10), funnel('test', 0, 10)].map(funnelPosterior));
    expect(p[1]).toBeCloseTo(0.5, 7);
  });

  it('a tiny sample: Beta(2, 1) against Beta(1, 2), P = 5/6 by direct integration of 2x · (2x − x²)', () => {
    // f_B(x) = 2x, F_A(x) = 1 − (1 − x)² = 2x − x²: ∫ 2x (2x − x²) dx over [0, 1] = 4/3 − 1/2.
    const p = winProbabilities([funnel('control', 0, 1), funnel('test', 1, 0)].map(funnelPosterior));
    expect(p[1]).toBeCloseTo(4 / 3 - 1 / 2, 7);
  });

  it('the significance rule: exposures, then probability, then loss', () => {
    const posts = [trend('control', 10, 99), trend('test', 50, 150)].map(countPosterior);
    expect(significance([99, 150], [0.1, 0.33], posts, [0.01, 0.99])).toEqual({
      code: 'not_enough_exposure',
      loss: 1,
    });
    const even = [trend('control', 100, 1000), trend('test', 101, 1000)].map(countPosterior);
    const p = winProbabilities(even);
    expect(significance([1000, 1000], [0.1, 0.101], even, p)).toEqual({
      code: 'low_win_probability',
      loss: 1,
    });
    // A clear win with a small rate gap: significant.
    const clear = [trend('control', 100, 1000), trend('test', 200, 1000)].map(countPosterior);
    const verdict = significance([1000, 1000], [0.1, 0.2], clear, winProbabilities(clear));
    expect(verdict.code).toBe('significant');
    expect(verdict.loss).toBeLessThan(0.01);
    // Rates of about 10 events per user, 0.64 apart (1.4 standard errors): test wins with
    // probability ≈ 0.92, but choosing it still loses ≈ 0.015 events per user: ≥ 0.01.
    const big = [trend('control', 1000, 100), trend('test', 1065, 100)].map(countPosterior);
    const bigP = winProbabilities(big);
    expect(Math.max(...bigP)).toBeGreaterThan(0.9);
    expect(significance([100, 100], [10, 10.65], big, bigP).code).toBe('high_loss');
  });
});
