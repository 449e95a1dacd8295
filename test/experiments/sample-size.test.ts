import { describe, expect, it } from 'vitest';
import {
  meanSampleSize,
  proportionSampleSize,
  runningDays,
} from '../../src/domain/experiments/stats/sample-size.js';

/**
 * The power formulas against values worked by hand (z_{0.975} = 1.959964, z_{0.8} = 0.841621)
 * and against the usual tables.
 */
describe('experiment sample size', () => {
  it('two proportions: 10 % → 12 % needs 3,841 per variant (alpha 0.05, power 0.8)', () => {
    // p̄ = 0.11: 1.959964·√(2·0.11·0.89) = 0.867264; 0.841621·√(0.09 + 0.1056) = 0.372221;
    // (1.239485)² / 0.02² = 3840.8 → 3841.
    expect(proportionSampleSize(0.1, 0.2)).toBe(3841);
  });

  it('two proportions: 50 % → 55 % needs 1,565 per variant (Fleiss table, no continuity correction)', () => {
    // p̄ = 0.525: 1.959964·√(0.49875) = 1.384172; 0.841621·√(0.25 + 0.2475) = 0.593535;
    // (1.977707)² / 0.05² = 1564.6 → 1565.
    expect(proportionSampleSize(0.5, 0.1)).toBe(1565);
  });

  it('a larger effect or a looser test needs fewer users; a stricter one more', () => {
    const base = proportionSampleSize(0.1, 0.2) as number;
    expect(proportionSampleSize(0.1, 0.5) as number).toBeLessThan(base);
    expect(proportionSampleSize(0.1, 0.2, { alpha: 0.1 }) as number).toBeLessThan(base);
    expect(proportionSampleSize(0.1, 0.2, { power: 0.9 }) as number).toBeGreaterThan(base);
    // A drop is detected as well as a rise of the same size, give or take the variance.
    expect(proportionSampleSize(0.1, -0.2)).toBeGreaterThan(3000);
  });

  it('means: an effect of half a standard deviation needs 63 per variant (Cohen d = 0.5)', () => {
    // 2·(1.959964 + 0.841621)²·1² / 0.5² = 2·7.848879 / 0.25 = 62.79 → 63 (the t-test table says 64).
    expect(meanSampleSize(10, 1, 0.05)).toBe(63);
    // d = 0.2: 2·7.848879 / 0.04 = 392.4 → 393.
    expect(meanSampleSize(2, 2, 0.2)).toBe(393);
  });

  it('gives null where no finite answer exists', () => {
    expect(proportionSampleSize(0, 0.1)).toBeNull();
    expect(proportionSampleSize(0.6, 1)).toBeNull();
    expect(proportionSampleSize(0.2, 0)).toBeNull();
    expect(meanSampleSize(0, 1, 0.1)).toBeNull();
    expect(meanSampleSize(3, 0, 0.1)).toBeNull();
  });

  it('running time: users of every variant over the daily users', () => {
    expect(runningDays(3841, 2, 1000)).toBe(8);
    expect(runningDays(3841, 2, 0)).toBeNull();
  });
});
