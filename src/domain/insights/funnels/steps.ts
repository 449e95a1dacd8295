import { compare, type SelectQuery } from '../../../hogql/ast.js';
import { alias, fn, fromSelect, num, select, v } from '../ast-kit.js';
import { entityName } from '../entities.js';
import { ALL_USERS } from '../trends/breakdown.js';
import type { FunnelSpec } from './spec.js';

/** Counts per step (people who reached at least that step) and conversion times, per breakdown value. */
export function stepsAggregateQuery(spec: FunnelSpec, persons: SelectQuery): SelectQuery {
  const counts = spec.steps.map((_, k) =>
    alias(`count_${k}`, fn('countIf', compare('>=', v('steps'), num(k + 1)))),
  );
  const times = spec.steps
    .slice(1)
    .flatMap((_, i) => [
      alias(`avg_${i + 1}`, fn('avg', v(`conversion_${i + 1}`))),
      alias(`median_${i + 1}`, fn('median', v(`conversion_${i + 1}`))),
    ]);
  const grouped = spec.breakdown !== null;
  return select({
    select: [v('breakdown_value'), ...counts, ...times],
    select_from: fromSelect(persons),
    group_by: [v('breakdown_value')],
    order_by: [
      { node: 'OrderExpr', expr: v('count_0'), order: 'DESC' },
      { node: 'OrderExpr', expr: v('breakdown_value'), order: 'ASC' },
    ],
    limit: num(grouped ? (spec.breakdown?.limit ?? 25) : 1),
  });
}

const finite = (x: unknown): number | null => {
  if (x === null || x === undefined) return null;
  const n = Number(x);
  return Number.isFinite(n) ? n : null;
};

/** PostHog's step objects for one row of the aggregate (one breakdown value). */
export function shapeSteps(
  spec: FunnelSpec,
  row: unknown[] | undefined,
  cohortName?: (value: string) => string,
): Record<string, unknown>[] {
  const n = spec.steps.length;
  const value = row ? String(row[0]) : '';
  return spec.steps.map((step, k) => {
    const unordered = spec.order === 'unordered';
    const out: Record<string, unknown> = {
      action_id: unordered ? null : step.action ? step.action.id : step.event,
      name: unordered ? `Completed ${k + 1} step${k === 0 ? '' : 's'}` : entityName(step),
      custom_name: unordered ? null : (step.custom_name ?? null),
      order: k,
      people: [],
      count: row ? Number(row[1 + k]) : 0,
      type: step.action ? 'actions' : 'events',
      average_conversion_time: k === 0 || !row ? null : finite(row[1 + n + 2 * (k - 1)]),
      median_conversion_time: k === 0 || !row ? null : finite(row[2 + n + 2 * (k - 1)]),
    };
    if (spec.breakdown?.type === 'cohort') {
      // PostHog's cohort funnels: the cohort's name, and its id (or "all") as the value.
      out.breakdown = cohortName ? cohortName(value) : value;
      out.breakdown_value = value === ALL_USERS ? ALL_USERS : Number(value);
    } else if (spec.breakdown) {
      out.breakdown = [value];
      out.breakdown_value = [value];
    }
    return out;
  });
}
