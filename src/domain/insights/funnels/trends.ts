import { compare } from '../../../hogql/ast.js';
import { runSelect } from '../../query/run-select.js';
import { dayInZone, formatInZone, intervalStarts } from '../../time/intervals.js';
import { alias, fn, fromSelect, num, select, v } from '../ast-kit.js';
import { funnelPersonsQuery } from './persons.js';
import type { FunnelRun } from './runner.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * Funnel trends: for each interval people entered the funnel in, the share (percent, 2 decimals)
 * who went from `funnelFromStep` to `funnelToStep`, zero-filled over the date range. A person is
 * counted once per interval they entered in.
 */
export async function funnelTrends(run: FunnelRun) {
  const { spec, range, properties, ctx } = run;
  const persons = funnelPersonsQuery(spec, range, properties);
  const out = await runSelect(
    select({
      select: [
        v('breakdown_value'),
        alias('period', v('period_pass')),
        fn('countIf', compare('>=', v('steps'), num(spec.fromStep + 1))),
        fn('countIf', compare('>=', v('steps'), num(spec.toStep + 1))),
      ],
      select_from: fromSelect(persons),
      group_by: [v('breakdown_value'), v('period')],
    }),
    ctx,
    { modifiers: run.node.modifiers as Record<string, unknown> | undefined },
  );
  const interval = range.interval;
  const starts = intervalStarts(range.dateFrom ?? range.dateTo, range.dateTo, interval, ctx.timezone, {
    weekStartDay: ctx.weekStartDay,
  });
  const keys = starts.map((s) => formatInZone(s, ctx.timezone));
  const byValue = new Map<string, Map<string, number>>();
  for (const [value, period, from, to] of out.rows) {
    const rates = byValue.get(String(value)) ?? new Map<string, number>();
    const f = Number(from);
    rates.set(String(period), f ? Math.round((Number(to) / f) * 10000) / 100 : 0);
    byValue.set(String(value), rates);
  }
  if (!spec.breakdown && !byValue.size) byValue.set('', new Map());
  const results = [...byValue.entries()].map(([value, rates]) => ({
    count: keys.length,
    data: keys.map((k) => rates.get(k) ?? 0),
    days: starts.map((s) => dayInZone(s, ctx.timezone)),
    labels: starts.map((s) => {
      const [y, m, d] = dayInZone(s, ctx.timezone).split('-');
      return `${Number(d)}-${MONTHS[Number(m) - 1]}-${y}`;
    }),
    ...(spec.breakdown ? { breakdown_value: [value] } : {}),
  }));
  return { results, hogql: out.hogql, seconds: out.seconds };
}
