import { compare, constant, type Expr, field, type SelectQuery } from '../../hogql/ast.js';
import { propertiesToExpr } from '../../hogql/property-filters.js';
import type { QueryResult, RunnerContext } from '../query/context.js';
import type { QueryNode } from '../query/kinds.js';
import { queryResponse } from '../query/response.js';
import type { QueryRunner } from '../query/run.js';
import { runSelect } from '../query/run-select.js';
import {
  alias,
  all,
  array,
  fn,
  fromSelect,
  fromTable,
  ifElse,
  isTrue,
  lambda,
  math,
  num,
  or,
  select,
  v,
} from './ast-kit.js';
import { entityExpr, insightProperties } from './entities.js';
import { instant } from './funnels/events.js';
import { cohortStarts, isoInZone, type RetentionSpec, retentionSpec } from './retention-spec.js';

/**
 * RetentionQuery: people who did the target event in a period (their first ever time, or every
 * time for recurring retention) form that period's cohort; value k counts the cohort members who
 * did the returning event k periods later (value 0 is the cohort itself). Period indexes are
 * computed against the cohort starts in the project timezone, so DST and week starts hold.
 */
function periodIndex(starts: Date[], at: Expr): Expr {
  const bounds = array(...starts.slice(0, -1).map(instant));
  return math('-', fn('arrayCount', lambda(['s'], compare('<=', v('s'), at)), bounds), num(1));
}

/** A person's breakdown value: a person property, or the event property on their first target event. */
function breakdownValue(spec: RetentionSpec, target: Expr): Expr {
  const b = spec.breakdown;
  if (!b) return constant('');
  if (b.type === 'person')
    return fn('any', fn('ifNull', fn('toString', field('person', 'properties', b.property)), constant('')));
  const value = fn('ifNull', fn('toString', field('properties', b.property)), constant(''));
  return fn('argMinIf', value, field('timestamp'), target);
}

function perActorQuery(spec: RetentionSpec, starts: Date[]): SelectQuery {
  const ts = field('timestamp');
  const inRange = all([
    compare('>=', ts, instant(starts[0] as Date)),
    compare('<', ts, instant(starts[starts.length - 1] as Date)),
  ]);
  const target = entityExpr(spec.target);
  const returning = entityExpr(spec.returning);
  const idx = periodIndex(starts, ts);
  const returns = alias('returns', fn('arrayDistinct', fn('groupArrayIf', idx, returning)));
  const where: Expr[] = [];
  let cohorts: Expr;
  if (spec.firstTime) {
    const first = fn('minIf', ts, target);
    const firstIn = all([
      compare('>=', first, instant(starts[0] as Date)),
      compare('<', first, instant(starts[starts.length - 1] as Date)),
    ]);
    cohorts = ifElse(firstIn, array(periodIndex(starts, first)), array());
    where.push(or(target, all([returning, inRange])));
  } else {
    cohorts = fn('arrayDistinct', fn('groupArrayIf', idx, target));
    where.push(inRange, or(target, returning));
  }
  const props = propertiesToExpr(spec.properties);
  if (!isTrue(props)) where.push(props);
  return select({
    select: [
      alias('actor', field('person_id')),
      alias('cohorts', cohorts),
      returns,
      alias('breakdown_value', breakdownValue(spec, target)),
    ],
    select_from: fromTable('events'),
    where: all(where),
    group_by: [v('actor')],
  });
}

export function retentionQuery(spec: RetentionSpec, starts: Date[]): SelectQuery {
  const perCohort = select({
    select: [v('actor'), v('breakdown_value'), alias('cohort', fn('arrayJoin', v('cohorts'))), v('returns')],
    select_from: fromSelect(perActorQuery(spec, starts)),
  });
  const later = fn(
    'arrayMap',
    lambda(['r'], math('-', v('r'), v('cohort'))),
    fn('arrayFilter', lambda(['r'], compare('>', v('r'), v('cohort'))), v('returns')),
  );
  const offsets = spec.cumulative
    ? fn('range', math('+', fn('arrayMax', fn('arrayPushFront', later, num(0))), num(1)))
    : fn('arrayPushFront', later, num(0));
  return select({
    select: [
      v('breakdown_value'),
      v('cohort'),
      alias('offset', fn('arrayJoin', offsets)),
      alias('people', fn('count')),
    ],
    select_from: fromSelect(perCohort),
    group_by: [v('breakdown_value'), v('cohort'), v('offset')],
  });
}

async function runRetention(node: QueryNode, ctx: RunnerContext): Promise<QueryResult> {
  const spec = { ...retentionSpec(node), properties: insightProperties(node, ctx) };
  const starts = cohortStarts(node, spec, ctx);
  const out = await runSelect(retentionQuery(spec, starts), ctx, {
    modifiers: node.modifiers as Record<string, unknown> | undefined,
  });
  const counts = new Map<string, Map<string, number>>();
  const sizes = new Map<string, number>();
  for (const [value, c, o, people] of out.rows) {
    const key = String(value);
    const cells = counts.get(key) ?? new Map<string, number>();
    cells.set(`${Number(c)}:${Number(o)}`, Number(people));
    counts.set(key, cells);
    if (Number(o) === 0) sizes.set(key, (sizes.get(key) ?? 0) + Number(people));
  }
  const values = spec.breakdown
    ? [...sizes.entries()]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .slice(0, spec.breakdown.limit)
        .map(([value]) => value)
    : [''];
  // Each cohort is followed up to date_to, for at most totalIntervals periods (itself included).
  const n = starts.length - 1;
  const results = values.flatMap((value) =>
    Array.from({ length: n }, (_, cohort) => ({
      values: Array.from({ length: Math.min(n - cohort, spec.totalIntervals) }, (_, k) => {
        const count = counts.get(value)?.get(`${cohort}:${k}`);
        return count === undefined ? { count: 0 } : { count, label: `${spec.periodName} ${k}` };
      }),
      label: `${spec.periodName} ${cohort}`,
      date: isoInZone(starts[cohort] as Date, ctx.timezone),
      ...(spec.breakdown ? { breakdown_value: value } : {}),
    })),
  );
  return queryResponse(
    {
      results,
      hogql: out.hogql,
    },
    { seconds: out.seconds, modifiers: node.modifiers as Record<string, unknown> | undefined },
  );
}

export const retentionRunner: QueryRunner = {
  check: (node) => {
    retentionSpec(node);
    return node;
  },
  run: runRetention,
  staleness: { interval: 'day' },
};

export const retentionInterval = (node: QueryNode) => {
  const period = (node.retentionFilter as { period?: string } | undefined)?.period;
  return period === 'Hour' ? 'hour' : period === 'Week' ? 'week' : period === 'Month' ? 'month' : 'day';
};
