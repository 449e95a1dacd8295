import type { VariantResult, VariantStats } from './types.js';

/** A variant's mean as the metric compares it: per user, or ΣN / ΣD for a ratio. */
export function meanOf(s: VariantStats): number | null {
  const d = s.denominator_sum ?? s.number_of_samples;
  return d > 0 ? s.sum / d : null;
}

/** The change of a variant's mean relative to control's (0.041 is 4.1 % better), or null. */
export function deltaOf(control: VariantStats, variant: VariantStats): number | null {
  const c = meanOf(control);
  const t = meanOf(variant);
  if (c === null || t === null || c === 0) return null;
  return (t - c) / c;
}

/** A group's name as people read it: the holdout group (`holdout-<id>`) is "Holdout". */
export const groupName = (key: string) => (/^holdout-\d+$/.test(key) ? 'Holdout' : key);

export const percent = (x: number, digits = 1) => `${(x * 100).toFixed(digits)}%`;
export const signedPercent = (x: number, digits = 1) =>
  `${x > 0 ? '+' : x < 0 ? '−' : ''}${percent(Math.abs(x), digits)}`;

export function formatP(p: number): string {
  if (p < 0.001) return 'p < 0.001';
  return `p = ${p < 0.01 ? p.toFixed(3) : p.toFixed(2)}`;
}

/** The interval the method reports, relative to control. */
export const intervalOf = (r: VariantResult): [number, number] | null =>
  (r.method === 'frequentist' ? r.confidence_interval : r.credible_interval) ?? null;

/**
 * What the numbers say, in a sentence: "test is 4.1% better, p = 0.01", "test wins with 97%
 * probability", or "Not significant yet" with the current reading. `lowerIsBetter` when the
 * metric's goal is a decrease.
 */
export function verdict(control: VariantStats, r: VariantResult, lowerIsBetter = false): string {
  const failures = [...(control.validation_failures ?? []), ...(r.validation_failures ?? [])];
  if (failures.includes('not-enough-exposures')) return 'Not enough exposures yet';
  if (failures.includes('baseline-mean-is-zero')) return 'Not enough data yet: control has no conversions';
  const delta = deltaOf(control, r);
  if (delta === null) return 'Not enough data yet';
  const good = lowerIsBetter ? delta < 0 : delta > 0;
  if (r.method === 'frequentist') {
    if (r.p_value === null || r.p_value === undefined) return 'Not enough data yet';
    if (!r.significant)
      return `Not significant yet (${groupName(r.key)} ${signedPercent(delta)}, ${formatP(r.p_value)})`;
    return `${groupName(r.key)} is ${percent(Math.abs(delta))} ${good ? 'better' : 'worse'}, ${formatP(r.p_value)}`;
  }
  const win = r.chance_to_win;
  if (win === null || win === undefined) return 'Not enough data yet';
  // chance_to_win is the chance the mean is higher; a metric to lower wins the other way.
  const winning = lowerIsBetter ? 1 - win : win;
  const pct = (x: number) => (x >= 0.995 ? 'over 99%' : `${Math.round(x * 100)}%`);
  if (!r.significant)
    return `Not significant yet (${groupName(r.key)} wins with ${pct(winning)} probability)`;
  return winning >= 0.5
    ? `${groupName(r.key)} wins with ${pct(winning)} probability`
    : `${groupName(r.key)} loses with ${pct(1 - winning)} probability`;
}
