import { parseExpr } from '../../hogql/parse.js';
import type { QueryResult, RunnerContext } from './context.js';
import type { QueryNode } from './kinds.js';
import { checkListNode, type ListQueryNode, listFilters } from './list-node.js';
import { buildListQuery, columnNames, fromTable } from './list-query.js';
import { pageOf, paginate, trimPage } from './paginate.js';
import { queryResponse } from './response.js';
import type { QueryRunner } from './run.js';
import { runSelect } from './run-select.js';
import { SESSION_STAR_FIELDS, sessionStarObject, starTuple } from './special-columns.js';
import { listStaleness, timeBounds } from './time-bounds.js';
import { isoDateTimeColumns } from './values.js';

export interface SessionsQueryNode extends ListQueryNode {
  kind: 'SessionsQuery';
}

/**
 * SessionsQuery: the `sessions` table as a list, like EventsQuery but windowed on the session's
 * start (`$start_timestamp`, default the last 24 hours) and filtered with session properties.
 */
export async function runSessionsQuery(node: SessionsQueryNode, ctx: RunnerContext): Promise<QueryResult> {
  const raw = node.select.length ? node.select : ['*'];
  const input = raw.map((text) => (text === '*' ? `tuple(${SESSION_STAR_FIELDS.join(', ')})` : text));
  const select = raw.map((text) => (text === '*' ? starTuple(SESSION_STAR_FIELDS) : parseExpr(text)));
  const filters = [...listFilters(node, ctx, 'sessions'), ...timeBounds('$start_timestamp', node, ctx)];
  const page = pageOf(node.limit, node.offset);
  const query = paginate(
    buildListQuery({
      from: fromTable('sessions'),
      selectInput: input,
      select,
      filters,
      orderBy: node.orderBy,
      timeColumn: '$start_timestamp',
    }),
    page,
  );
  const run = await runSelect(query, ctx, { modifiers: node.modifiers });
  const { rows, params } = trimPage(run.rows, page);
  isoDateTimeColumns(rows, run.types, run.timezone);
  raw.forEach((text, i) => {
    if (text === '*') for (const row of rows) row[i] = sessionStarObject(row[i], run.timezone);
  });
  return queryResponse(
    {
      results: rows,
      columns: columnNames(raw, select),
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

export const sessionsRunner: QueryRunner = {
  check: (node: QueryNode) => {
    checkListNode(node);
    return node;
  },
  run: (node, ctx) => runSessionsQuery(node as SessionsQueryNode, ctx),
  staleness: { interval: 'minute' },
  hints: listStaleness,
};
