import { compare, constant, field } from '../../hogql/ast.js';
import { actionToExpr } from '../actions/predicate.js';
import { resolvedAction } from '../actions/resolve.js';
import type { QueryResult, RunnerContext } from './context.js';
import type { QueryNode } from './kinds.js';
import { checkListNode, type ListQueryNode, listFilters, unsupported } from './list-node.js';
import { buildListQuery, columnNames, fromTable } from './list-query.js';
import { optionalString } from './node-checks.js';
import { pageOf, paginate, trimPage } from './paginate.js';
import { personsByDistinctId } from './persons-lookup.js';
import { queryResponse } from './response.js';
import type { QueryRunner } from './run.js';
import { runSelect } from './run-select.js';
import { displayNameObject, eventStarObject, expandEventColumns } from './special-columns.js';
import { listStaleness, timeBounds } from './time-bounds.js';
import { isoDateTimeColumns } from './values.js';

export interface EventsQueryNode extends ListQueryNode {
  kind: 'EventsQuery';
  event?: string | null;
}

export function checkEventsNode(node: QueryNode): QueryNode {
  checkListNode(node);
  optionalString(node, 'event');
  if (node.actionId !== undefined && node.actionId !== null) resolvedAction(node, 'actionId');
  if (node.source !== undefined && node.source !== null)
    throw unsupported(node, 'source', 'insight sources are not supported yet');
  return node;
}

/**
 * EventsQuery: the events table as a list (select/where/orderBy in HogQL, filters, a time window,
 * has-more pages), with `*`, `person` and `person_display_name` shaped as PostHog shows them.
 */
export async function runEventsQuery(node: EventsQueryNode, ctx: RunnerContext): Promise<QueryResult> {
  const raw = node.select.length ? node.select : ['*'];
  const cols = expandEventColumns(raw);
  const filters = listFilters(node, ctx, 'events');
  if (typeof node.event === 'string' && node.event)
    filters.push(compare('==', field('event'), constant(node.event)));
  if (node.actionId !== undefined && node.actionId !== null)
    filters.push(actionToExpr(resolvedAction(node, 'actionId').steps));
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
  return queryResponse(
    {
      results: rows,
      columns: columnNames(raw, cols.select),
      types: run.types,
      hogql: run.hogql,
      clickhouse: run.clickhouse,
    },
    { seconds: run.seconds, modifiers: node.modifiers },
    {
      ...params,
    },
  );
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
  hints: listStaleness,
};
