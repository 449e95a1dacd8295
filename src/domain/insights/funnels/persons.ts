import { compare, constant, type Expr, type SelectQuery } from '../../../hogql/ast.js';
import type { AnyProperties } from '../../../hogql/property-filters.js';
import type { ResolvedDateRange } from '../../time/date-range.js';
import { alias, at, fn, fromSelect, ifElse, math, nth, num, select, v } from '../ast-kit.js';
import { EV, funnelEventsQuery } from './events.js';
import { bestPathQuery } from './path.js';
import type { FunnelSpec } from './spec.js';

const E = v('evs');
const PATH = nth(v('best'), 3);
const evAt = (i: Expr) => at(E, i);
const msAt = (step: number) => at(v('ev_ms'), at(PATH, step + 1));
const reached = (step: number) => compare('>', at(PATH, step + 1), num(0));

/** Seconds from step `from` to step `to`, null when `to` was not reached. */
export const secondsBetween = (from: number, to: number): Expr =>
  ifElse(reached(to), math('/', math('-', msAt(to), msAt(from)), num(1000)), constant(null));

function breakdownValue(spec: FunnelSpec): Expr {
  if (!spec.breakdown) return constant('');
  switch (spec.attribution) {
    case 'all_events':
      return v('breakdown_pass');
    case 'last_touch':
      return nth(evAt(at(PATH, v('steps'))), EV.breakdown);
    case 'step':
      return ifElse(
        reached(spec.attributionStep),
        nth(evAt(at(PATH, spec.attributionStep + 1)), EV.breakdown),
        constant(''),
      );
    default:
      return nth(evAt(at(PATH, 1)), EV.breakdown);
  }
}

/**
 * One row per person in the funnel: `steps` reached, `conversion_k` seconds from step k-1 to k,
 * `breakdown_value`, and `entered_ms` (when step 1 happened): what every visualisation aggregates.
 */
export function funnelPersonsQuery(
  spec: FunnelSpec,
  range: ResolvedDateRange,
  properties: AnyProperties,
): SelectQuery {
  const paths = bestPathQuery(spec, funnelEventsQuery(spec, range, properties));
  const conversions = spec.steps
    .slice(1)
    .map((_, i) => alias(`conversion_${i + 1}`, secondsBetween(i, i + 1)));
  return select({
    select: [
      v('aggregation_target'),
      alias('steps', fn('toInt', nth(v('best'), 1))),
      ...conversions,
      alias('breakdown_value', breakdownValue(spec)),
      alias('entered_ms', msAt(0)),
      alias('window_seconds', secondsBetween(spec.fromStep, spec.toStep)),
      ...(spec.viz === 'trends' ? [v('period_pass')] : []),
    ],
    select_from: fromSelect(paths),
    where: compare('>', nth(v('best'), 1), num(0)),
  });
}
