import { type AnySelect, cloneAst, type SelectQuery } from '../../hogql/ast.js';
import { isExposed } from '../../hogql/errors.js';
import {
  ACTOR_COLUMNS,
  type ActorsQueryNode,
  actorOrder,
  column,
  DEFAULT_COLUMNS,
  personFilters,
} from './actors-columns.js';
import { actorsSourceFor, sourceIdChain, sourceJoinedToPersons, sourceOnly } from './actors-source.js';
import type { QueryResult, RunnerContext } from './context.js';
import type { QueryNode } from './kinds.js';
import { buildListQuery, fromTable } from './list-query.js';
import {
  optionalInteger,
  optionalObject,
  optionalProperties,
  optionalString,
  stringList,
} from './node-checks.js';
import { pageOf, paginate, trimPage } from './paginate.js';
import { personsById } from './persons-lookup.js';
import { queryResponse } from './response.js';
import type { QueryRunner } from './run.js';
import { type Compiled, compileFor, runCompiled, type SelectOptions } from './run-select.js';
import { displayNameObject, specialName } from './special-columns.js';
import { isoDateTimeColumns } from './values.js';

function checkActorsNode(node: QueryNode): QueryNode {
  stringList(node, 'select');
  stringList(node, 'orderBy');
  optionalString(node, 'search');
  optionalProperties(node, 'properties');
  optionalProperties(node, 'fixedProperties');
  optionalInteger(node, 'limit');
  optionalInteger(node, 'offset');
  optionalObject(node, 'modifiers');
  if (node.source !== undefined && node.source !== null) {
    return { ...node, source: actorsSourceFor(node.source).check(node.source as QueryNode) };
  }
  return node;
}

/**
 * The query, compiled. Over a source, actors come from the source alone when every column can
 * be read from it, else from the source joined to persons (PostHog's two attempts).
 */
function compileActors(node: ActorsQueryNode, input: string[], ctx: RunnerContext): Compiled {
  const select = input.map(column);
  const page = pageOf(node.limit, node.offset);
  const build = (from: SelectQuery['select_from']) =>
    paginate(
      buildListQuery({
        from,
        selectInput: input,
        select: cloneAst(select),
        filters: personFilters(node),
        order: actorOrder(node.orderBy),
        timeColumn: 'created_at',
      }),
      page,
    );
  const options: SelectOptions = { modifiers: node.modifiers };
  if (!node.source) return compileFor(build(fromTable('persons')), ctx, options);

  const source = actorsSourceFor(node.source);
  const built = source.build(node.source, ctx);
  const sourceOptions = { ...built.options, modifiers: node.modifiers };
  const idChain = sourceIdChain(built.query);
  try {
    return compileFor(build(sourceOnly(cloneAst(built.query), idChain)), ctx, sourceOptions);
  } catch (err) {
    if (!isExposed(err)) throw err;
  }
  const joined = sourceJoinedToPersons(cloneAst(built.query), idChain, cloneAst(built.query) as AnySelect);
  return compileFor(build(joined), ctx, sourceOptions);
}

/**
 * ActorsQuery over persons or a source query: a page of actors with HogQL columns, person
 * filters and `search`; `person` columns come back as the person with its distinct ids.
 */
export async function runActorsQuery(node: ActorsQueryNode, ctx: RunnerContext): Promise<QueryResult> {
  const input = node.select?.length ? node.select : DEFAULT_COLUMNS;
  const page = pageOf(node.limit, node.offset);
  const run = await runCompiled(compileActors(node, input, ctx), ctx);
  const { rows, params } = trimPage(run.rows, page);
  isoDateTimeColumns(rows, run.types, run.timezone);

  let missing: number | null = null;
  for (const [i, text] of input.entries()) {
    if (specialName(text) === 'person_display_name')
      for (const row of rows) row[i] = displayNameObject(row[i]);
    if (!ACTOR_COLUMNS.has(text)) continue;
    const actors = await personsById(
      rows.map((row) => String(row[i])),
      ctx,
    );
    missing = rows.length - actors.size;
    for (const row of rows) row[i] = actors.get(String(row[i])) ?? { id: String(row[i]) };
  }
  return queryResponse(
    {
      results: rows,
      columns: input,
      types: run.types,
      hogql: run.hogql,
      clickhouse: run.clickhouse,
    },
    { seconds: run.seconds, modifiers: node.modifiers },
    {
      missing_actors_count: missing,
      ...params,
    },
  );
}

export const actorsRunner: QueryRunner = {
  check: checkActorsNode,
  run: (node, ctx) => runActorsQuery(node as ActorsQueryNode, ctx),
  staleness: { interval: 'minute' },
};
