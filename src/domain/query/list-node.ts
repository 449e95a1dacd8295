import { ApiError } from '../../errors.js';
import { call, compare, constant, type Expr, field, type SelectQuery } from '../../hogql/ast.js';
import { parseExpr } from '../../hogql/parse.js';
import { type AnyProperties, at, propertiesToExpr } from '../../hogql/property-filters.js';
import type { RunnerContext } from './context.js';
import type { QueryNode } from './kinds.js';
import {
  optionalBoolean,
  optionalInteger,
  optionalObject,
  optionalProperties,
  optionalString,
  stringList,
} from './node-checks.js';
import { checkBounds } from './time-bounds.js';

/** The fields EventsQuery and SessionsQuery share. */
export interface ListQueryNode extends QueryNode {
  select: string[];
  where?: string[];
  properties?: AnyProperties;
  fixedProperties?: AnyProperties;
  filterTestAccounts?: boolean;
  personId?: string;
  before?: string;
  after?: string;
  limit?: number;
  offset?: number;
  orderBy?: string[];
  modifiers?: Record<string, unknown>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function unsupported(node: QueryNode, key: string, what: string): ApiError {
  return new ApiError(400, 'validation_error', 'invalid_input', `${node.kind}.${key}: ${what}`, key);
}

/** Checks the shared fields of EventsQuery and SessionsQuery. */
export function checkListNode(node: QueryNode): void {
  stringList(node, 'select', true);
  stringList(node, 'where');
  stringList(node, 'orderBy');
  optionalProperties(node, 'properties');
  optionalProperties(node, 'fixedProperties');
  optionalBoolean(node, 'filterTestAccounts');
  checkBounds({ before: optionalString(node, 'before'), after: optionalString(node, 'after') });
  optionalInteger(node, 'limit');
  optionalInteger(node, 'offset');
  optionalObject(node, 'modifiers');
  const personId = optionalString(node, 'personId');
  if (personId !== undefined && !UUID.test(personId))
    throw unsupported(node, 'personId', 'must be a person UUID');
}

/** Events (or sessions) of one person: every distinct id currently mapped to it. */
export function personDistinctIdsFilter(personId: string): Expr {
  const sub: SelectQuery = {
    node: 'SelectQuery',
    select: [field('distinct_id')],
    select_from: { node: 'JoinExpr', table: field('person_distinct_ids') },
    where: compare('==', field('person_id'), call('toUUID', [constant(personId)])),
  };
  return compare('in', field('distinct_id'), sub);
}

/** Filters shared by the list kinds: `where` strings, property filters, person, test accounts. */
export function listFilters(node: ListQueryNode, ctx: RunnerContext, scope: 'events' | 'sessions'): Expr[] {
  const out: Expr[] = (node.where ?? []).map((text) => parseExpr(text));
  for (const [name, props] of [
    ['properties', node.properties],
    ['fixedProperties', node.fixedProperties],
  ] as const) {
    const e = at(name, () => propertiesToExpr(props, scope));
    if (!(e.node === 'Constant' && e.value === true)) out.push(e);
  }
  if (node.personId) out.push(personDistinctIdsFilter(node.personId));
  if (node.filterTestAccounts && ctx.testAccountFilters) {
    const e = propertiesToExpr(ctx.testAccountFilters as AnyProperties, scope);
    if (!(e.node === 'Constant' && e.value === true)) out.push(e);
  }
  return out;
}
