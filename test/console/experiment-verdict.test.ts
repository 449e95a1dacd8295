import { describe, expect, it } from 'vitest';
import type { VariantResult, VariantStats } from '../../web/src/pages/experiments/types.js';
import { deltaOf, formatP, verdict } from '../../web/src/pages/experiments/verdict.js';

/** The Experiments page's sentence for a result, for each method and state. */
describe('experiment verdicts', () => {
  const control: VariantStats = { key: 'control', number_of_samples: 1000, sum: 100, sum_squares: 100 };
  const test = (extra: Partial<VariantResult>): VariantResult => ({
    key: 'test',
    number_of_samples: 1000,
    sum: 141,
    sum_squares: 141,
    method: 'frequentist',
    significant: false,
    ...extra,
  });

  it('names the holdout group "Holdout", not by its key', () => {
    expect(verdict(control, test({ key: 'holdout-7', significant: true, p_value: 0.012 }))).toBe(
      'Holdout is 41.0% better, p = 0.01',
    );
    expect(verdict(control, test({ key: 'holdout-like', p_value: 0.32 }))).toBe(
      'Not significant yet (holdout-like +41.0%, p = 0.32)',
    );
  });

  it('frequentist: the change and the p-value, or not significant yet', () => {
    expect(deltaOf(control, test({}))).toBeCloseTo(0.41);
    expect(verdict(control, test({ significant: true, p_value: 0.012 }))).toBe(
      'test is 41.0% better, p = 0.01',
    );
    expect(verdict(control, test({ significant: true, p_value: 0.0004, sum: 59 }))).toBe(
      'test is 41.0% worse, p < 0.001',
    );
    expect(verdict(control, test({ p_value: 0.32 }))).toBe('Not significant yet (test +41.0%, p = 0.32)');
    // A metric to lower: a drop is better.
    expect(verdict(control, test({ significant: true, p_value: 0.003, sum: 59 }), true)).toBe(
      'test is 41.0% better, p = 0.003',
    );
  });

  it('Bayesian: the chance to win, or not significant yet', () => {
    const b = (win: number, significant: boolean) =>
      test({ method: 'bayesian', chance_to_win: win, significant });
    expect(verdict(control, b(0.97, true))).toBe('test wins with 97% probability');
    expect(verdict(control, b(0.02, true))).toBe('test loses with 98% probability');
    expect(verdict(control, b(0.999, true))).toBe('test wins with over 99% probability');
    expect(verdict(control, b(0.6, false))).toBe('Not significant yet (test wins with 60% probability)');
  });

  it('too little data says so rather than guessing', () => {
    expect(verdict(control, test({ validation_failures: ['not-enough-exposures'] }))).toBe(
      'Not enough exposures yet',
    );
    expect(verdict({ ...control, sum: 0 }, test({ p_value: null }))).toBe('Not enough data yet');
    expect(formatP(0.5)).toBe('p = 0.50');
  });
});
