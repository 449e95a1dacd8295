import {
  call,
  compare,
  constant,
  type Expr,
  field,
  type OrderExpr,
  type SelectQuery,
} from '../../hogql/ast.js';
import { parseExpr } from '../../hogql/parse.js';
import { type AnyProperties, propertiesToExpr } from '../../hogql/property-filters.js';
import type { QueryNode } from './kinds.js';
import { parseOrder } from './list-query.js';
import { DISPLAY_NAME_PROPERTIES, displayNameExpr, specialName } from './special-columns.js';

/** ActorsQuery's columns, filters and order over persons (or a source joined to them). */
export interface ActorsQueryNode extends QueryNode {
  kind: 'ActorsQuery';
  source?: QueryNode | null;
  select?: string[];
  search?: string;
  properties?: AnyProperties;
  fixedProperties?: AnyProperties;
  orderBy?: string[];
  limit?: number;
  offset?: number;
  modifiers?: Record<string, unknown>;
}

/** What PostHog's persons list selects when the query names no columns. */
export const DEFAULT_COLUMNS = ['person', 'id', 'person.$delete'];
export const ACTOR_COLUMNS = new Set(['person', 'actor']);

const displayName = () => displayNameExpr(['properties'], ['id'], call('toString', [field('id')]));

export function column(text: string): Expr {
  if (specialName(text) === 'person_display_name') return displayName();
  if (text === 'person.$delete') return constant(1);
  if (ACTOR_COLUMNS.has(text)) return field('id');
  return parseExpr(text);
}

/** Person property filters and `search` (email, name, id or any distinct id, case-insensitive). */
export function personFilters(node: ActorsQueryNode): Expr[] {
  const out: Expr[] = [];
  for (const props of [node.properties, node.fixedProperties]) {
    const e = propertiesToExpr(props, 'persons');
    if (!(e.node === 'Constant' && e.value === true)) out.push(e);
  }
  if (node.search) {
    const pattern = constant(`%${node.search}%`);
    const ilike = (e: Expr) => compare('ilike', call('toString', [e]), pattern);
    const byDistinctId: SelectQuery = {
      node: 'SelectQuery',
      select: [field('person_id')],
      select_from: { node: 'JoinExpr', table: field('person_distinct_ids') },
      where: compare('ilike', field('distinct_id'), pattern),
    };
    out.push({
      node: 'Or',
      exprs: [
        ilike(field('properties', 'email')),
        ilike(field('properties', 'name')),
        ilike(field('id')),
        compare('in', field('id'), byDistinctId),
      ],
    });
  }
  return out;
}

/** `person` alone orders by the display property; `person_display_name` by the display name. */
export function actorOrder(orderBy: string[] | undefined): OrderExpr[] | undefined {
  if (!orderBy) return undefined;
  const only = orderBy.length === 1 ? orderBy[0] : undefined;
  if (only === 'person' || only === 'person ASC' || only === 'person DESC') {
    const by = field('properties', DISPLAY_NAME_PROPERTIES[0] as string);
    return [{ node: 'OrderExpr', expr: by, order: only === 'person DESC' ? 'DESC' : 'ASC' }];
  }
  return orderBy.map((text) => {
    if (specialName(text) !== 'person_display_name') return parseOrder(text);
    return { node: 'OrderExpr', expr: displayName(), order: /DESC\s*$/i.test(text) ? 'DESC' : 'ASC' };
  });
}
