import { applyFormula, compileFormula } from './formula.js';
import { invalidInput, type TrendsNode } from './node.js';
import { clean, type SeriesResult } from './series.js';

/** The formulas of a query: `formulaNodes`, else `formulas`, else `formula`. */
export function formulasOf(n: TrendsNode): Array<{ formula: string; custom_name?: string | null }> {
  const tf = n.trendsFilter ?? {};
  const list = tf.formulaNodes?.length
    ? tf.formulaNodes
    : tf.formulas?.length
      ? tf.formulas.map((formula) => ({ formula }))
      : tf.formula
        ? [{ formula: tf.formula }]
        : [];
  for (const f of list)
    if (typeof f?.formula !== 'string' || !f.formula.trim())
      throw invalidInput(n.kind, 'trendsFilter.formula', 'Input should be a valid string');
  return list;
}

/** A result's (compare period, breakdown value) group; JSON keeps lists of values apart. */
const groupOf = (r: SeriesResult) => JSON.stringify([r.compare_label ?? '', r.breakdown_value ?? '']);

/** Formula results: one per formula and (compare period, breakdown value) group. */
export function formulaResults(
  node: TrendsNode,
  perSeries: SeriesResult[][],
  total: boolean,
): SeriesResult[] {
  const out: SeriesResult[] = [];
  for (const f of formulasOf(node)) {
    const formula = compileFormula(f.formula, node.series.length);
    const groups = new Map<string, SeriesResult>();
    for (const list of perSeries) for (const r of list) groups.set(groupOf(r), r);
    for (const [group, sample] of groups) {
      const inputs = perSeries.map((list) => list.find((r) => groupOf(r) === group));
      const label = `Formula (${f.formula})`;
      const base = { ...sample, label: f.custom_name ?? label, action: null, order: out.length };
      if (total) {
        const [value] = applyFormula(
          formula,
          inputs.map((r) => [r?.aggregated_value ?? 0]),
        );
        out.push({ ...base, aggregated_value: value ?? 0 });
      } else {
        const data = applyFormula(
          formula,
          inputs.map((r) => r?.data ?? sample.data.map(() => 0)),
        );
        out.push({ ...base, data, count: clean(data.reduce((a, b) => a + b, 0)) });
      }
    }
  }
  return out;
}
