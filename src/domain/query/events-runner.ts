import { call, compare, constant, type Expr, field, type SelectQuery } from '../../hogql/ast.js';
import { parseExpr } from '../../hogql/parse.js';
import { type AnyProperties, propertiesToExpr } from '../../hogql/property-filters.js';
import { ApiError } from '../errors.js';
import type { QueryResult, RunnerContext } from './context.js';
import { effectiveModifiers } from './hogql-runner.js';
import type { QueryNode } from './kinds.js';
import { buildListQuery, columnNames, fromTable } from './list-query.js';
import { optionalBoolean, optionalInteger, optionalObject, optionalProperties, optionalString, stringList } from './node-checks.js';
import { pageOf, paginate, trimPage } from './paginate.js';
import { personsByDistinctId } from './persons-lookup.js';
import type { QueryRunner } from './run.js';
import { runSelect } from './run-select.js';
import { displayNameObject, eventStarObject, expandEventColumns } from './special-columns.js';
import { timeBounds } from './time-bounds.js';
import { isoDateTimeColumns } from './values.js';

export interface EventsQueryNode extends QueryNode {
  kind: 'EventsQuery';
  select: string[];
  where?: string[];
  properties?: AnyProperties;
  fixedProperties?: AnyProperties;
  filterTestAccounts?: boolean;
  event?: string | null;
  personId?: string;
  before?: string;
  after?: string;
  limit?: number;
  offset?: number;
  orderBy?: string[];
  modifiers?: Record<string, unknown>;
}

/** The route may hand runners the team's test-account filters; without them the flag filters nothing. */
export type ListRunnerContext = RunnerContext & { testAccountFilters?: AnyProperties };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function unsupported(node: QueryNode, key: string, what: string): ApiError {
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
  optionalString(node, 'before');
  optionalString(node, 'after');
  optionalInteger(node, 'limit');
  optionalInteger(node, 'offset');
  optionalObject(node, 'modifiers');
  const personId = optionalString(node, 'personId');
  if (personId !== undefined && !UUID.test(personId)) throw unsupported(node, 'personId', 'must be a person UUID');
}

export function checkEventsNode(node: QueryNode): QueryNode {
  checkListNode(node);
  optionalString(node, 'event');
  if (node.actionId !== undefined && node.actionId !== null)
    throw unsupported(node, 'actionId', 'actions are not supported; filter with `event` or `where` instead');
  if (node.source !== undefined && node.source !== null)
    throw unsupported(node, 'source', 'insight sources are not supported yet');
  return node;
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
export function listFilters(
  node: EventsQueryNode | (QueryNode & Partial<EventsQueryNode>),
  ctx: ListRunnerContext,
  scope: 'events' | 'sessions',
): Expr[] {
  const out: Expr[] = (node.where ?? []).map((text) => parseExpr(text));
  for (const props of [node.properties, node.fixedProperties]) {
    const e = propertiesToExpr(props, scope);
    if (!(e.node === 'Constant' && e.value === true)) out.push(e);
  }
  if (node.personId) out.push(personDistinctIdsFilter(node.personId));
  if (node.filterTestAccounts && ctx.testAccountFilters) {
    const e = propertiesToExpr(ctx.testAccountFilters, scope);
    if (!(e.node === 'Constant' && e.value === true)) out.push(e);
  }
  return out;
}

/**
 * EventsQuery: the events table as a list (select/where/orderBy in HogQL, filters, a time window,
 * has-more pages), with `*`, `person` and `person_display_name` shaped as PostHog shows them.
 */
export async function runEventsQuery(node: EventsQueryNode, ctx: ListRunnerContext): Promise<QueryResult> {
  const raw = node.select.length ? node.select : ['*'];
  const cols = expandEventColumns(raw);
  const filters = listFilters(node, ctx, 'events');
  if (typeof node.event === 'string' && node.event) filters.push(compare('==', field('event'), constant(node.event)));
  filters.push(...timeBounds('timestamp', node, ctx));
  const page = pageOf(node.limit, node.offset);
  const query = paginate(
    buildListQuery({
      from: fromTable('events'),
      selectInput: cols.input,
      select: cols.select,
      filters,
      orderBy: node.orderBy,
      timeColumn: 'timestamp',
    }),
    page,
  );
  const run = await runSelect(query, ctx, { modifiers: node.modifiers });
  const { rows, params } = trimPage(run.rows, page);
  isoDateTimeColumns(rows, run.types, run.timezone);
  await shapeEventColumns(rows, cols.kinds, run.timezone, ctx);
  return {
    results: rows,
    columns: columnNames(raw, cols.select),
    types: run.types,
    hogql: run.hogql,
    clickhouse: run.clickhouse,
    timings: [{ k: './query', t: run.seconds }],
    error: null,
    modifiers: effectiveModifiers(node.modifiers),
    ...params,
  };
}

async function shapeEventColumns(rows: unknown[][], kinds: string[], zone: string, ctx: RunnerContext) {
  const personColumns: number[] = [];
  kinds.forEach((kind, i) => {
    if (kind === 'star') for (const row of rows) row[i] = eventStarObject(row[i], zone);
    else if (kind === 'display_name') for (const row of rows) row[i] = displayNameObject(row[i]);
    else if (kind === 'person') personColumns.push(i);
  });
  if (!personColumns.length || !rows.length) return;
  const ids = rows.flatMap((row) => personColumns.map((i) => String(row[i])));
  const persons = await personsByDistinctId(ids, ctx);
  for (const row of rows) {
    for (const i of personColumns) {
      const distinctId = String(row[i]);
      const person = persons.get(distinctId);
      row[i] = person ? { ...person, distinct_id: distinctId } : { distinct_id: distinctId };
    }
  }
}

export const eventsRunner: QueryRunner = {
  check: checkEventsNode,
  run: (node, ctx) => runEventsQuery(node as EventsQueryNode, ctx),
  staleness: { interval: 'minute' },
};

