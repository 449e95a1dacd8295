import { parseSelect } from '../../hogql/parse.js';
import type { QueryResult, RunnerContext } from '../query/context.js';
import type { QueryNode } from '../query/kinds.js';
import { queryResponse } from '../query/response.js';
import type { QueryRunner } from '../query/run.js';
import { runSelect } from '../query/run-select.js';
import {
  checkWebNode,
  filterExpr,
  goalExpr,
  num,
  periodConds,
  periods,
  sessionRows,
  type WebNode,
} from './common.js';

export interface WebOverviewItem {
  key: string;
  kind: 'unit' | 'duration_s' | 'percentage' | 'currency';
  value: number | null;
  previous: number | null;
  changeFromPreviousPct: number | null;
  isIncreaseBad?: boolean;
}

/** PostHog's item: percentages ×100, the change rounded to a whole percent (none from zero). */
export function item(
  key: string,
  kind: WebOverviewItem['kind'],
  value: number | null,
  previous: number | null,
  isIncreaseBad = false,
): WebOverviewItem {
  const scale = (v: number | null) => (v === null ? null : kind === 'percentage' ? v * 100 : v);
  const [v, p] = [scale(value), scale(previous)];
  const change = v !== null && p !== null && p !== 0 ? Math.round((100 * (v - p)) / p) : null;
  return {
    key,
    kind,
    value: v,
    previous: p,
    changeFromPreviousPct: change,
    ...(isIncreaseBad ? { isIncreaseBad } : {}),
  };
}

/**
 * WebOverviewQuery: visitors (unique persons), views ($pageview + $screen), sessions, average
 * session duration and bounce rate, for sessions that started in the period (and the previous one).
 */
export async function runWebOverview(node: WebNode, ctx: RunnerContext): Promise<QueryResult> {
  const p = periods(node, ctx);
  const { cur, prev } = periodConds(p);
  const goal = goalExpr(node);
  const text = goal
    ? `SELECT
      uniqIf(person_id, ${cur}), uniqIf(person_id, ${prev}),
      sumIf(conversion_count, ${cur}), sumIf(conversion_count, ${prev}),
      uniqIf(conversion_person_id, ${cur}), uniqIf(conversion_person_id, ${prev})
    FROM (${sessionRows(p, { goal: true })})`
    : `SELECT
      uniqIf(person_id, ${cur}), uniqIf(person_id, ${prev}),
      sumIf(views, ${cur}), sumIf(views, ${prev}),
      uniqIf(session_id, ${cur}), uniqIf(session_id, ${prev}),
      avgIf(duration, ${cur}), avgIf(duration, ${prev}),
      avgIf(bounce, ${cur}), avgIf(bounce, ${prev})
    FROM (${sessionRows(p)})`;
  const run = await runSelect(parseSelect(text), ctx, {
    modifiers: node.modifiers,
    exprs: { filters: filterExpr(node, ctx), ...(goal ? { goal } : {}) },
  });
  const row = (run.rows[0] ?? []).map(num);
  const compare = p.prevFrom !== null;
  const pair = (i: number) => [row[i] ?? null, compare ? (row[i + 1] ?? null) : null] as const;
  const count = (i: number) => [row[i] ?? 0, compare ? (row[i + 1] ?? 0) : null] as const;
  const rate = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : a / b);
  const results = goal
    ? [
        item('visitors', 'unit', ...count(0)),
        item('total conversions', 'unit', ...count(2)),
        item('unique conversions', 'unit', ...count(4)),
        item(
          'conversion rate',
          'percentage',
          rate(count(4)[0], count(0)[0]),
          compare ? rate(count(4)[1], count(0)[1]) : null,
        ),
      ]
    : [
        item('visitors', 'unit', ...count(0)),
        item('views', 'unit', ...count(2)),
        item('sessions', 'unit', ...count(4)),
        item('session duration', 'duration_s', ...pair(6)),
        item('bounce rate', 'percentage', ...pair(8), true),
      ];
  return queryResponse(
    {
      results,
      dateFrom: p.dateFromText,
      dateTo: p.dateToText,
      samplingRate: { numerator: 1 },
      usedPreAggregatedTables: false,
      hogql: run.hogql,
    },
    { seconds: run.seconds, modifiers: node.modifiers },
  );
}

export const webOverviewRunner: QueryRunner = {
  check: (node: QueryNode) => {
    checkWebNode(node as WebNode);
    return node;
  },
  run: (node, ctx) => runWebOverview(node as WebNode, ctx),
  staleness: { interval: 'minute' },
};
