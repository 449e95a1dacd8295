import { validationError } from '../../errors.js';
import { call, compare, constant, type Expr, field, type SelectQuery } from '../../hogql/ast.js';
import { elementFilterToExpr } from '../../hogql/element-filters.js';
import { isExposed } from '../../hogql/errors.js';
import { ClickHousePrinter } from '../../hogql/printer/clickhouse.js';
import { PrintContext } from '../../hogql/printer/context.js';
import { type PropertyFilter, propertyFilterToExpr } from '../../hogql/property-filters.js';
import { resolveAny } from '../../hogql/resolver/select.js';
import { actionToExpr } from '../actions/predicate.js';
import { all, fromTable } from '../insights/ast-kit.js';
import type { Leaf, PropertyCondition } from './filter-types.js';
import type { WhereContext } from './query-where.js';

type EventLeaf = Extract<Leaf, { kind: 'event' }>;

/**
 * Event filters that need the HogQL compiler (an action's steps, autocapture element filters) as a
 * subquery of the sessions with a matching event. The printer adds the team guard; strings are
 * bound through the outer query's parameters, so the names never clash.
 */
export const needsHogQL = (l: EventLeaf) => l.action !== undefined || (l.elements?.length ?? 0) > 0;

/** A recording filter's property condition in the shape the HogQL filter builder takes. */
function asFilter(c: PropertyCondition): PropertyFilter {
  const f: PropertyFilter = { type: 'event', key: c.key, operator: c.operator };
  if (c.number !== undefined) f.value = c.number;
  else if (c.operator === 'exact' || c.operator === 'is_not') f.value = c.values;
  else if (c.values.length > 0) f.value = c.values[0];
  return f;
}

const time = (value: string): Expr => call('toDateTime64', [constant(value), constant(6), constant('UTC')]);

export function hogqlSessionsSql(l: EventLeaf, ctx: WhereContext): string {
  const conditions: Expr[] = [compare('!=', field('$session_id'), constant(''))];
  if (ctx.eventsFrom) conditions.push(compare('>=', field('timestamp'), time(ctx.eventsFrom)));
  if (ctx.eventsTo) conditions.push(compare('<=', field('timestamp'), time(ctx.eventsTo)));
  if (l.event !== null) conditions.push(compare('==', field('event'), constant(l.event)));
  try {
    if (l.action) conditions.push(actionToExpr(l.action.steps ?? []));
    for (const c of l.properties) conditions.push(propertyFilterToExpr(asFilter(c)));
    for (const e of l.elements ?? []) conditions.push(elementFilterToExpr(e));
    const q: SelectQuery = {
      node: 'SelectQuery',
      select: [field('$session_id')],
      select_from: fromTable('events'),
      where: all(conditions),
    };
    resolveAny(q, new Map(), 0);
    const print = new PrintContext({
      teamId: ctx.teamId,
      timezone: ctx.timezone,
      weekStartDay: 0,
      table: (name) => ctx.store.table(name),
      bind: (value) => ctx.params.add(value, 'String'),
    });
    return `r.session_id IN (${new ClickHousePrinter(print).print(q)})`;
  } catch (error) {
    // An action saved with a step the compiler cannot take (a selector it does not read).
    if (isExposed(error)) throw validationError(error.message, l.action ? l.action.attr : null);
    throw error;
  }
}
