import { compare, constant, type Expr } from '../../../hogql/ast.js';
import type { ActorsSource } from '../../query/actors-source.js';
import type { QueryNode } from '../../query/kinds.js';
import { optionalObject } from '../../query/node-checks.js';
import { resolveDateRange } from '../../time/date-range.js';
import { alias, all, fromSelect, select, v } from '../ast-kit.js';
import { insightProperties } from '../entities.js';
import { funnelPersonsQuery } from './persons.js';
import { funnelSpec, invalidFunnel } from './spec.js';

/**
 * FunnelsActorsQuery as an ActorsQuery source: the people who reached step `funnelStep` (1-based),
 * or with a negative step those who reached the step before it and dropped off there; narrowed to
 * one breakdown value with `funnelStepBreakdown`.
 */
function check(node: QueryNode): QueryNode {
  const source = optionalObject(node, 'source');
  if (source?.kind !== 'FunnelsQuery')
    throw invalidFunnel('source', 'FunnelsActorsQuery.source must be a FunnelsQuery');
  const spec = funnelSpec(source as QueryNode);
  const step = node.funnelStep;
  if (!Number.isInteger(step) || step === 0 || Math.abs(step as number) > spec.steps.length || step === -1)
    throw invalidFunnel(
      'funnelStep',
      `funnelStep must be 1..${spec.steps.length}, or -2..-${spec.steps.length} for drop-offs`,
    );
  return node;
}

function breakdownFilter(value: unknown): Expr[] {
  if (value === undefined || value === null) return [];
  const one = Array.isArray(value) ? value[0] : value;
  return [compare('==', v('breakdown_value'), constant(String(one ?? '')))];
}

export const funnelActorsSource: ActorsSource = {
  check,
  build(node, ctx) {
    const source = node.source as QueryNode;
    const spec = funnelSpec(source);
    const interval = typeof source.interval === 'string' ? (source.interval as 'day') : 'day';
    const range = resolveDateRange(source.dateRange as never, {
      timezone: ctx.timezone,
      now: ctx.now,
      interval,
    });
    const persons = funnelPersonsQuery(spec, range, insightProperties(source, ctx));
    const step = node.funnelStep as number;
    const reached =
      step > 0
        ? compare('>=', v('steps'), constant(step))
        : compare('==', v('steps'), constant(Math.abs(step) - 1));
    return {
      query: select({
        select: [alias('actor_id', v('aggregation_target'))],
        select_from: fromSelect(persons),
        where: all([reached, ...breakdownFilter(node.funnelStepBreakdown)]),
      }),
      options: { modifiers: source.modifiers as Record<string, unknown> | undefined },
    };
  },
};
