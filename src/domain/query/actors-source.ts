import { ApiError } from '../../errors.js';
import { type AnySelect, compare, type Expr, field, type SelectQuery } from '../../hogql/ast.js';
import { HogQLQueryError } from '../../hogql/errors.js';
import { parseSelect } from '../../hogql/parse.js';
import type { RunnerContext } from './context.js';
import { filtersExpr } from './filters.js';
import { checkHogQLNode, type HogQLQueryNode } from './hogql-runner.js';
import type { QueryNode } from './kinds.js';
import type { SelectOptions } from './run-select.js';

/**
 * Where an ActorsQuery's actors come from when it has a `source`: a query whose rows carry an
 * actor id. HogQLQuery is built in; the insight actor kinds (InsightActorsQuery, FunnelsActorsQuery,
 * StickinessActorsQuery, …) register here when they exist.
 */
export interface ActorsSource {
  check(node: QueryNode): QueryNode;
  /** The source as a SELECT, and what its placeholders need. */
  build(node: QueryNode, ctx: RunnerContext): { query: AnySelect; options: SelectOptions };
}

const SOURCES: Record<string, ActorsSource> = {
  HogQLQuery: {
    check: (node) => checkHogQLNode(node) as unknown as QueryNode,
    build(node, ctx) {
      const q = node as unknown as HogQLQueryNode;
      return {
        query: parseSelect(q.query),
        options: {
          values: q.values,
          variables: q.variables,
          exprs: { filters: filtersExpr(q.filters, ctx.timezone, ctx.now) },
        },
      };
    },
  },
};

export function registerActorsSource(kind: string, source: ActorsSource): void {
  SOURCES[kind] = source;
}

export function actorsSourceFor(node: unknown): ActorsSource {
  const kind = typeof node === 'object' && node !== null ? (node as { kind?: unknown }).kind : undefined;
  const source = typeof kind === 'string' ? SOURCES[kind] : undefined;
  if (!source) {
    throw new ApiError(
      400,
      'validation_error',
      'invalid_input',
      `ActorsQuery.source of kind ${typeof kind === 'string' ? kind.slice(0, 100) : 'unknown'} is not supported`,
      'source',
    );
  }
  return source;
}

export const selectQueries = (q: AnySelect): SelectQuery[] =>
  q.node === 'SelectQuery'
    ? [q]
    : [
        ...selectQueries(q.initial_select_query),
        ...q.subsequent_select_queries.flatMap((s) => selectQueries(s.select_query)),
      ];

/**
 * The source's actor id column, found as PostHog does: an alias named `group_key`, `actor_id` or
 * `person_id`; else the first alias or field whose name contains "id".
 */
export function sourceIdChain(q: AnySelect): Array<string | number> {
  const select = (selectQueries(q)[0] as SelectQuery).select;
  for (const c of select) {
    if (c.node === 'Alias' && ['group_key', 'actor_id', 'person_id'].includes(c.alias)) return [c.alias];
  }
  for (const c of select) {
    if (c.node === 'Alias' && c.alias.includes('id')) return [c.alias];
    if (c.node === 'Field' && c.chain.some((p) => String(p).toLowerCase().includes('id'))) return c.chain;
  }
  throw new HogQLQueryError('Source query must have an id column');
}

export const SOURCE_ALIAS = 'source';

/** `FROM (source) AS source`, the source giving each row's actor as `id`. */
export function sourceOnly(q: AnySelect, idChain: Array<string | number>): SelectQuery['select_from'] {
  for (const s of selectQueries(q)) s.select.push({ node: 'Alias', alias: 'id', expr: field(...idChain) });
  return { node: 'JoinExpr', table: q, alias: SOURCE_ALIAS };
}

/**
 * `FROM (source) AS source INNER JOIN persons ON persons.id = source.<id>`, for columns the
 * source does not have; the IN narrows the persons read to the source's actors.
 */
export function sourceJoinedToPersons(
  q: AnySelect,
  idChain: Array<string | number>,
  again: AnySelect,
): SelectQuery['select_from'] {
  const sourceId = field(SOURCE_ALIAS, ...idChain);
  const ids: SelectQuery = {
    node: 'SelectQuery',
    select: [field(SOURCE_ALIAS, ...idChain)],
    select_from: { node: 'JoinExpr', table: again, alias: SOURCE_ALIAS },
  };
  const on: Expr = {
    node: 'And',
    exprs: [compare('==', field('persons', 'id'), sourceId), compare('in', field('persons', 'id'), ids)],
  };
  return {
    node: 'JoinExpr',
    table: q,
    alias: SOURCE_ALIAS,
    next_join: {
      node: 'JoinExpr',
      table: field('persons'),
      join_type: 'INNER JOIN',
      constraint: { node: 'JoinConstraint', expr: on, constraint_type: 'ON' },
    },
  };
}
