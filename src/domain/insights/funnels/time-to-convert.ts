import { compare, constant, type Expr } from '../../../hogql/ast.js';
import { runSelect } from '../../query/run-select.js';
import { alias, fn, fromSelect, math, num, select, v } from '../ast-kit.js';
import { funnelPersonsQuery } from './persons.js';
import type { FunnelRun } from './runner.js';

/**
 * Time to convert: a histogram of seconds from `funnelFromStep` to `funnelToStep` over the people
 * who made it. Bins as PostHog sizes them: `binCount` (1-90) or ceil(cbrt(samples)) clamped to
 * 1-60, width ceil((max - min) / bins) (60 s when that is 0), starting at floor(min), plus one
 * bin past the end so the maximum has a home.
 */
export async function timeToConvert(run: FunnelRun) {
  const { spec, range, properties, ctx } = run;
  const options = { modifiers: run.node.modifiers as Record<string, unknown> | undefined };
  const converted = () => {
    const q = funnelPersonsQuery(spec, range, properties);
    q.where = { node: 'And', exprs: [q.where as Expr, fn('isNotNull', v('window_seconds'))] };
    return q;
  };
  const stats = await runSelect(
    select({
      select: [
        fn('count'),
        fn('floor', fn('min', v('window_seconds'))),
        fn('ceil', fn('max', v('window_seconds'))),
        fn('round', fn('avg', v('window_seconds')), num(2)),
      ],
      select_from: fromSelect(converted()),
    }),
    ctx,
    options,
  );
  const [samples, min, max, average] = (stats.rows[0] ?? []).map((x) => (x === null ? null : Number(x)));
  if (!samples || typeof min !== 'number' || typeof max !== 'number' || !Number.isFinite(min))
    return {
      results: { bins: [], average_conversion_time: null },
      hogql: stats.hogql,
      seconds: stats.seconds,
    };
  const bins = spec.binCount ?? Math.min(60, Math.max(1, Math.ceil(Math.cbrt(samples))));
  const width = Math.ceil((max - min) / bins) || 60;
  const bucket = fn('toInt', fn('floor', math('/', math('-', v('window_seconds'), num(min)), num(width))));
  const counts = await runSelect(
    select({
      select: [alias('bin', bucket), fn('count')],
      select_from: fromSelect(converted()),
      group_by: [v('bin')],
      where: compare('>=', v('bin'), constant(0)),
    }),
    ctx,
    options,
  );
  const byBin = new Map(counts.rows.map((r) => [Number(r[0]), Number(r[1])]));
  return {
    results: {
      bins: Array.from({ length: bins + 1 }, (_, i) => [min + i * width, byBin.get(i) ?? 0]),
      average_conversion_time: average ?? null,
    },
    hogql: counts.hogql,
    seconds: stats.seconds + counts.seconds,
  };
}
