import { describe, expect, it } from 'vitest';
import { comparable } from '../../src/domain/experiments/query.js';

/** The ratio metric's delta-method reduction, against values computed here from the raw pairs. */
describe('ratio metric: delta method', () => {
  const sums = (key: string, pairs: [number, number][]) => ({
    key,
    number_of_samples: pairs.length,
    sum: pairs.reduce((s, [n]) => s + n, 0),
    sum_squares: pairs.reduce((s, [n]) => s + n * n, 0),
    denominator_sum: pairs.reduce((s, [, d]) => s + d, 0),
    denominator_sum_squares: pairs.reduce((s, [, d]) => s + d * d, 0),
    numerator_denominator_sum_product: pairs.reduce((s, [n, d]) => s + n * d, 0),
  });

  it('a denominator of 1 for everyone is the plain mean', () => {
    const pairs: [number, number][] = [
      [3, 1],
      [0, 1],
      [5, 1],
      [2, 1],
    ];
    const c = comparable(sums('t', pairs));
    expect(c.number_of_samples).toBe(4);
    expect(c.sum).toBeCloseTo(10, 10);
    expect(c.sum_squares).toBeCloseTo(9 + 0 + 25 + 4, 10);
  });

  it('matches the delta-method variance written out from the pairs', () => {
    const pairs: [number, number][] = [
      [10, 2],
      [0, 1],
      [7, 3],
      [4, 1],
      [12, 4],
    ];
    const n = pairs.length;
    const mN = pairs.reduce((s, [x]) => s + x, 0) / n;
    const mD = pairs.reduce((s, [, y]) => s + y, 0) / n;
    const vN = pairs.reduce((s, [x]) => s + (x - mN) ** 2, 0) / (n - 1);
    const vD = pairs.reduce((s, [, y]) => s + (y - mD) ** 2, 0) / (n - 1);
    const cv = pairs.reduce((s, [x, y]) => s + (x - mN) * (y - mD), 0) / (n - 1);
    const ratio = mN / mD;
    const varMean = (vN - 2 * ratio * cv + ratio * ratio * vD) / (mD * mD) / n;
    const c = comparable(sums('t', pairs));
    const mean = c.sum / c.number_of_samples;
    const variance = (c.sum_squares - n * mean * mean) / (n - 1);
    expect(mean).toBeCloseTo(ratio, 12);
    expect(variance / n).toBeCloseTo(varMean, 12);
  });

  it('no denominator or too few users gives nothing to compare', () => {
    expect(
      comparable(
        sums('t', [
          [1, 0],
          [2, 0],
        ]),
      ).number_of_samples,
    ).toBe(0);
    expect(comparable(sums('t', [[1, 1]])).number_of_samples).toBe(0);
  });
});
