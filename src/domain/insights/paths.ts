import { compare, constant, type Expr, type SelectQuery } from '../../hogql/ast.js';
import type { QueryResult, RunnerContext } from '../query/context.js';
import type { QueryNode } from '../query/kinds.js';
import { queryResponse } from '../query/response.js';
import type { QueryRunner } from '../query/run.js';
import { runSelect } from '../query/run-select.js';
import { alias, all, fn, fromSelect, lambda, math, nth, num, select, tuple, v } from './ast-kit.js';
import { insightProperties } from './entities.js';
import { sessionsQuery, trimmedQuery } from './paths-sessions.js';
import { type PathsSpec, pathsSpec } from './paths-spec.js';

/**
 * PathsQuery: each person's events in time order, cut into sessions at 30-minute gaps, repeats in
 * a row collapsed, trimmed to start/end points and the step limit; every consecutive pair is an
 * edge `{source: "1_/a", target: "2_/b"}` weighted by how many sessions took it, with the
 * average milliseconds between the two.
 */
export function pathsQuery(spec: PathsSpec, node: QueryNode, ctx: RunnerContext): SelectQuery {
  const P = v('path');
  const T = v('path_ts');
  const steps = fn('arrayPopBack', P);
  // One row per edge from one arrayJoin over (step number, name, next name, ms) tuples: an
  // arrayJoin over step numbers that indexed the path copied the whole path onto every edge row.
  const edge = fn(
    'arrayMap',
    lambda(['a', 'b', 'k', 'ta', 'tb'], tuple(v('k'), v('a'), v('b'), math('-', v('tb'), v('ta')))),
    steps,
    fn('arrayPopFront', P),
    fn('arrayEnumerate', steps),
    fn('arrayPopBack', T),
    fn('arrayPopFront', T),
  );
  // Edges are grouped by (step number, name, next name); the `1_/a` labels are built once per
  // group rather than once per session's edge.
  const edges = select({
    select: [
      alias('e', fn('arrayJoin', edge)),
      alias('i', nth(v('e'), 1)),
      alias('a', nth(v('e'), 2)),
      alias('b', nth(v('e'), 3)),
      alias('ms', nth(v('e'), 4)),
    ],
    select_from: fromSelect(trimmedQuery(spec, sessionsQuery(spec, node, ctx))),
    where: all([compare('>', v('start_idx'), num(0)), compare('>', v('end_idx'), num(0))]),
  });
  const label = (i: Expr, name: Expr) => fn('concat', fn('toString', i), constant('_'), name);
  const having: Expr[] = [];
  if (spec.minEdgeWeight !== null) having.push(compare('>=', v('value'), num(spec.minEdgeWeight)));
  if (spec.maxEdgeWeight !== null) having.push(compare('<=', v('value'), num(spec.maxEdgeWeight)));
  return select({
    select: [
      alias('source', label(v('i'), v('a'))),
      alias('target', label(math('+', v('i'), num(1)), v('b'))),
      alias('value', fn('count')),
      alias('average_conversion_time', fn('avg', v('ms'))),
    ],
    select_from: fromSelect(edges),
    group_by: [v('i'), v('a'), v('b')],
    having: having.length ? all(having) : null,
    order_by: [
      { node: 'OrderExpr', expr: v('value'), order: 'DESC' },
      { node: 'OrderExpr', expr: v('source'), order: 'ASC' },
      { node: 'OrderExpr', expr: v('target'), order: 'ASC' },
    ],
    limit: num(spec.edgeLimit),
  });
}

async function runPaths(node: QueryNode, ctx: RunnerContext): Promise<QueryResult> {
  const spec = { ...pathsSpec(node), properties: insightProperties(node, ctx) };
  const out = await runSelect(pathsQuery(spec, node, ctx), ctx, {
    modifiers: node.modifiers as Record<string, unknown> | undefined,
  });
  return queryResponse(
    {
      results: out.rows.map(([source, target, value, avg]) => ({
        source,
        target,
        value: Number(value),
        average_conversion_time: Number(avg),
      })),
      hogql: out.hogql,
    },
    { seconds: out.seconds, modifiers: node.modifiers as Record<string, unknown> | undefined },
  );
}

export const pathsRunner: QueryRunner = {
  check: (node) => {
    pathsSpec(node);
    return node;
  },
  run: runPaths,
  staleness: { interval: 'day' },
};
