import { ApiError } from '../../errors.js';
import { compare, constant, type Expr, field } from '../../hogql/ast.js';
import {
  type AnyProperties,
  type PropertyGroupFilter,
  propertiesToExpr,
} from '../../hogql/property-filters.js';
import { actionToExpr } from '../actions/predicate.js';
import { type ResolvedAction, resolvedAction } from '../actions/resolve.js';
import { all, isTrue } from './ast-kit.js';

/**
 * A series entry: an EventsNode (event null = all events) or an ActionsNode, whose definition
 * `resolveActions` embedded before the query was checked (`event` is then null).
 */
export interface EntityNode {
  kind: 'EventsNode' | 'ActionsNode';
  event: string | null;
  action?: ResolvedAction;
  name?: string | null;
  custom_name?: string | null;
  properties?: AnyProperties;
  optionalInFunnel?: boolean;
}

const bad = (attr: string, detail: string) =>
  new ApiError(400, 'validation_error', 'invalid_input', detail, attr);

/** Validates one series entry; data warehouse tables are a clear 400. */
export function checkEntity(
  raw: unknown,
  attr: string,
  insight: 'funnels' | 'retention' | 'paths',
): EntityNode {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw bad(attr, `${attr} must be an object`);
  const node = raw as Record<string, unknown>;
  if (node.kind === 'DataWarehouseNode' && insight === 'funnels')
    throw bad(
      attr,
      'Data warehouse tables are not supported in funnels just yet. For now, please try this funnel without the data warehouse-based step.',
    );
  if (node.kind === 'ActionsNode') {
    if (node.properties !== undefined && node.properties !== null && typeof node.properties !== 'object')
      throw bad(attr, `${attr}.properties must be a list of property filters`);
    return {
      ...(node as object),
      kind: 'ActionsNode',
      event: null,
      action: resolvedAction(node, attr),
    } as EntityNode;
  }
  if (node.kind !== 'EventsNode') throw bad(attr, `${attr}: expected an EventsNode or an ActionsNode`);
  if (node.event !== undefined && node.event !== null && typeof node.event !== 'string')
    throw bad(attr, `${attr}.event must be a string or null`);
  if (node.properties !== undefined && node.properties !== null && typeof node.properties !== 'object')
    throw bad(attr, `${attr}.properties must be a list of property filters`);
  for (const key of ['name', 'custom_name'])
    if (node[key] !== undefined && node[key] !== null && typeof node[key] !== 'string')
      throw bad(attr, `${attr}.${key} must be a string`);
  return {
    ...(node as object),
    kind: 'EventsNode',
    event: (node.event as string | null | undefined) ?? null,
  } as EntityNode;
}

/** The events an entity matches, as a HogQL condition over `events`. */
export function entityExpr(entity: EntityNode): Expr {
  const parts: Expr[] = [];
  if (entity.action) parts.push(actionToExpr(entity.action.steps));
  else if (entity.event !== null) parts.push(compare('==', field('event'), constant(entity.event)));
  const props = propertiesToExpr(entity.properties);
  if (!isTrue(props)) parts.push(props);
  return all(parts);
}

/** The name PostHog shows for an entity: an action's stored name, else its `name`, else the event, else "All events". */
export const entityName = (entity: EntityNode): string =>
  entity.action
    ? (entity.action.name ?? entity.name ?? `Action ${entity.action.id}`)
    : (entity.name ?? entity.event ?? 'All events');

/**
 * The filters every event of an insight passes: the node's `properties`, and with
 * `filterTestAccounts` the project's test-account filters (handed to runners by the route).
 */
export function insightProperties(
  node: Record<string, unknown>,
  ctx: { testAccountFilters?: AnyProperties },
): AnyProperties {
  const group = (p: unknown): PropertyGroupFilter | null => {
    if (!p) return null;
    if (Array.isArray(p)) return p.length ? { type: 'AND', values: p } : null;
    return p as PropertyGroupFilter;
  };
  const parts = [group(node.properties)];
  if (node.filterTestAccounts === true) parts.push(group(ctx.testAccountFilters));
  const values = parts.filter((p): p is PropertyGroupFilter => p !== null);
  return values.length ? { type: 'AND', values } : null;
}
