import { parseSelect } from '../../hogql/parse.js';
import type { QueryResult, RunnerContext } from '../query/context.js';
import type { QueryNode } from '../query/kinds.js';
import { queryResponse } from '../query/response.js';
import type { QueryRunner } from '../query/run.js';
import { runSelect } from '../query/run-select.js';
import {
  checkWebNode,
  filterExpr,
  invalid,
  num,
  periodConds,
  periods,
  sessionRows,
  type WebNode,
} from './common.js';

interface ClicksNode extends WebNode {
  limit?: number;
  stripQueryParams?: boolean;
}

/** Outbound clicks: autocapture clicks posthog-js marks with `$external_click_url`. */
export const CLICKS =
  "event = '$autocapture' AND properties.$event_type = 'click' AND ifNull(properties.$external_click_url, '') != ''";

/**
 * WebExternalClicksTableQuery: visitors and clicks per outbound URL, as (current, previous) pairs,
 * for sessions that started in the period; `stripQueryParams` drops the query string and fragment.
 */
export async function runExternalClicks(node: ClicksNode, ctx: RunnerContext): Promise<QueryResult> {
  const p = periods(node, ctx);
  const { cur, prev } = periodConds(p);
  const limit = node.limit ?? 100;
  const url = node.stripQueryParams
    ? 'cutQueryStringAndFragment(toString(properties.$external_click_url))'
    : 'toString(properties.$external_click_url)';
  const text = `SELECT url, uniqIf(person_id, ${cur}) AS c_visitors, uniqIf(person_id, ${prev}),
      sumIf(views, ${cur}) AS c_clicks, sumIf(views, ${prev})
    FROM (${sessionRows(p, { select: `${url} AS url`, groupBy: 'url', events: CLICKS })})
    WHERE (${cur}) OR (${prev})
    GROUP BY url HAVING c_visitors > 0
    ORDER BY c_visitors DESC, c_clicks DESC, url ASC
    LIMIT ${limit + 1}`;
  const run = await runSelect(parseSelect(text), ctx, {
    modifiers: node.modifiers,
    exprs: { filters: filterExpr(node, ctx) },
  });
  const compare = p.prevFrom !== null;
  const rows = run.rows.slice(0, limit).map((r) => {
    const n = r.map(num);
    return [r[0], [n[1] ?? 0, compare ? (n[2] ?? 0) : null], [n[3] ?? 0, compare ? (n[4] ?? 0) : null]];
  });
  return queryResponse(
    {
      results: rows,
      columns: ['context.columns.url', 'context.columns.visitors', 'context.columns.clicks'],
      types: ['String', 'Tuple(UInt64, UInt64)', 'Tuple(UInt64, UInt64)'],
      hogql: run.hogql,
      samplingRate: { numerator: 1 },
    },
    { seconds: run.seconds, modifiers: node.modifiers },
    { hasMore: run.rows.length > limit, limit },
  );
}

export const webExternalClicksRunner: QueryRunner = {
  check: (node: QueryNode) => {
    const n = node as ClicksNode;
    checkWebNode(n);
    if (n.limit != null && (!Number.isInteger(n.limit) || n.limit < 1 || n.limit > 10000))
      throw invalid('limit must be an integer from 1 to 10000', 'limit');
    return node;
  },
  run: (node, ctx) => runExternalClicks(node as ClicksNode, ctx),
  staleness: { interval: 'minute' },
};
