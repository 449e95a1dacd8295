import { call, type Expr, field, type SelectQuery } from '../../hogql/ast.js';
import type { QueryResult } from '../query/context.js';
import type { QueryNode } from '../query/kinds.js';
import { queryResponse } from '../query/response.js';
import type { QueryRunner } from '../query/run.js';
import { runSelect } from '../query/run-select.js';
import { checkMath } from './trends/math.js';
import { checkInsightNode, type InsightNode, optionalObjectField } from './trends/node.js';
import {
  bucketOf,
  currentPeriod,
  type InsightContext,
  num,
  type Period,
  previousPeriod,
  seriesFilters,
  timeRange,
} from './trends/scope.js';
import { actionOf, seriesName } from './trends/series.js';

/**
 * StickinessQuery: for each series, how many persons performed it in exactly 1, 2, ... N of the
 * N intervals of the range.
 */
interface StickinessNode extends InsightNode {
  kind: 'StickinessQuery';
  compareFilter?: { compare?: boolean | null; compare_to?: string | null } | null;
}

function check(node: QueryNode): QueryNode {
  const n = checkInsightNode(node) as StickinessNode;
  n.series.forEach((s, i) => {
    checkMath(s, i, ['total', 'dau']);
  });
  optionalObjectField(n, 'stickinessFilter');
  optionalObjectField(n, 'compareFilter');
  return n;
}

const alias = (name: string, expr: Expr): Expr => ({ node: 'Alias', alias: name, expr });

/** Rows `[intervals active, persons]`. */
function stickinessSelect(filters: Expr[], period: Period): SelectQuery {
  const perActor: SelectQuery = {
    node: 'SelectQuery',
    select: [
      alias('actor', field('person_id')),
      alias('intervals', call('count', [bucketOf(period.interval)], { distinct: true })),
    ],
    select_from: { node: 'JoinExpr', table: field('events') },
    where: { node: 'And', exprs: [...filters, ...timeRange(period)] },
    group_by: [field('actor')],
  };
  return {
    node: 'SelectQuery',
    select: [field('intervals'), alias('persons', call('count', []))],
    select_from: { node: 'JoinExpr', table: perActor },
    group_by: [field('intervals')],
  };
}

const unitLabel = (n: number, interval: string) => `${n} ${interval}${n === 1 ? '' : 's'}`;

async function run(node: StickinessNode, ctx: InsightContext): Promise<QueryResult> {
  const started = performance.now();
  const current = await currentPeriod(node, ctx);
  const compare = node.compareFilter?.compare === true;
  const periods: Array<[Period, 'current' | 'previous' | null]> = compare
    ? [
        [current, 'current'],
        [previousPeriod(current, node.compareFilter?.compare_to, ctx), 'previous'],
      ]
    : [[current, null]];
  const results: Record<string, unknown>[] = [];
  let hogql = '';
  for (const [index, series] of node.series.entries()) {
    for (const [period, label] of periods) {
      const out = await runSelect(stickinessSelect(seriesFilters(series, node, ctx), period), ctx, {
        modifiers: node.modifiers,
      });
      hogql ||= out.hogql;
      const n = period.buckets.length;
      const data = new Array<number>(n).fill(0);
      for (const [intervals, persons] of out.rows) {
        const i = num(intervals);
        if (i >= 1 && i <= n) data[i - 1] = num(persons);
      }
      const days = data.map((_, i) => i + 1);
      results.push({
        data,
        days,
        labels: days.map((d) => unitLabel(d, period.interval)),
        count: data.reduce((a, b) => a + b, 0),
        label: seriesName(series),
        action: actionOf(series, index, days.map(String)),
        order: index,
        filter: { insight: 'STICKINESS', interval: period.interval },
        ...(label ? { compare: true, compare_label: label } : {}),
      });
    }
  }
  return queryResponse(
    {
      results,
      hogql,
    },
    { seconds: (performance.now() - started) / 1000, modifiers: node.modifiers },
  );
}

export const stickinessRunner: QueryRunner = {
  check,
  run: (node, ctx) => run(node as StickinessNode, ctx),
  staleness: { interval: 'day' },
};
