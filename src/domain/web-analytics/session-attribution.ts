import type { Expr } from '../../hogql/ast.js';
import { parseExpr, parseSelect } from '../../hogql/parse.js';
import { type AnyProperties, at, propertiesToExpr } from '../../hogql/property-filters.js';
import type { QueryResult, RunnerContext } from '../query/context.js';
import type { QueryNode } from '../query/kinds.js';
import { queryResponse } from '../query/response.js';
import type { QueryRunner } from '../query/run.js';
import { runSelect } from '../query/run-select.js';
import { type DateRangeInput, resolveDateRange } from '../time/date-range.js';
import { at_, invalid } from './common.js';

/** PostHog's SessionAttributionGroupBy values, the session field each reads and its column. */
const GROUPS: Record<string, { field: string | null; column: string }> = {
  ChannelType: { field: '$channel_type', column: 'channel_type' },
  ReferringDomain: { field: '$entry_referring_domain', column: 'referring_domain' },
  Source: { field: '$entry_utm_source', column: 'utm_source' },
  Medium: { field: '$entry_utm_medium', column: 'utm_medium' },
  Campaign: { field: '$entry_utm_campaign', column: 'utm_campaign' },
  // Burrow keeps no ad click ids per session: the column is always empty.
  AdIds: { field: null, column: 'ad_ids' },
  InitialURL: { field: '$entry_current_url', column: 'example_entry_urls' },
};
const ORDER = ['ChannelType', 'ReferringDomain', 'Source', 'Medium', 'Campaign', 'AdIds', 'InitialURL'];

interface AttributionNode {
  kind: string;
  groupBy: string[];
  filters?: { properties?: AnyProperties; dateRange?: DateRangeInput | null } | null;
  limit?: number;
  offset?: number;
  modifiers?: Record<string, unknown>;
}

function check(node: AttributionNode): AttributionNode {
  const g = node.groupBy;
  if (!Array.isArray(g) || g.some((x) => typeof x !== 'string' || !Object.hasOwn(GROUPS, x)))
    throw invalid(`groupBy must be a list of ${ORDER.join(', ')}`, 'groupBy');
  const f = node.filters;
  if (f != null && (typeof f !== 'object' || Array.isArray(f)))
    throw invalid('filters must be an object {properties, dateRange}', 'filters');
  if (f?.dateRange != null && (typeof f.dateRange !== 'object' || Array.isArray(f.dateRange)))
    throw invalid('filters.dateRange must be an object', 'filters__dateRange');
  if (node.limit != null && (!Number.isInteger(node.limit) || node.limit < 1 || node.limit > 10000))
    throw invalid('limit must be an integer from 1 to 10000', 'limit');
  if (node.offset != null && (!Number.isInteger(node.offset) || node.offset < 0))
    throw invalid('offset must be a non-negative integer', 'offset');
  return node;
}

/** `filters`: session property filters, and the date range on the session's start. */
function sessionFilters(node: AttributionNode, ctx: RunnerContext): Expr {
  const parts: Expr[] = [
    at('filters__properties', () => propertiesToExpr(node.filters?.properties, 'sessions')),
  ];
  const range = node.filters?.dateRange;
  if (range && (range.date_from || range.date_to)) {
    const r = resolveDateRange(range, { timezone: ctx.timezone, now: ctx.now });
    const conds = [`$start_timestamp < ${at_(r.dateTo)}`];
    if (r.dateFrom && !r.isAll) conds.push(`$start_timestamp >= ${at_(r.dateFrom)}`);
    parts.push(parseExpr(conds.join(' AND ')));
  }
  return { node: 'And', exprs: parts };
}

/**
 * SessionAttributionExplorerQuery: sessions counted per combination of the chosen attribution
 * fields; a field not grouped by shows its ten most common values (`topK(10)`), as PostHog.
 */
export async function runSessionAttribution(node: AttributionNode, ctx: RunnerContext): Promise<QueryResult> {
  const limit = node.limit ?? 100;
  const offset = node.offset ?? 0;
  const grouped = new Set(node.groupBy);
  const selects: string[] = [];
  const groupBy: string[] = [];
  for (const name of ORDER) {
    const { field, column } = GROUPS[name] as { field: string | null; column: string };
    if (field === null) continue;
    if (grouped.has(name)) groupBy.push(`"context.columns.${column}"`);
    selects.push(`${grouped.has(name) ? field : `topK(10)(${field})`} AS "context.columns.${column}"`);
  }
  const text = `SELECT count() AS "context.columns.count", ${selects.join(', ')}
    FROM sessions WHERE {filters}
    ${groupBy.length ? `GROUP BY ${groupBy.join(', ')}` : ''}
    ORDER BY "context.columns.count" DESC${groupBy.length ? `, ${groupBy.join(', ')}` : ''}
    LIMIT ${limit + 1} OFFSET ${offset}`;
  const run = await runSelect(parseSelect(text), ctx, {
    modifiers: node.modifiers,
    exprs: { filters: sessionFilters(node, ctx) },
  });
  // ad_ids sits before the entry URLs, as in PostHog's columns.
  const adIds = grouped.has('AdIds') ? null : [];
  const rows = run.rows.slice(0, limit).map((r) => [...r.slice(0, 6), adIds, r[6]]);
  const columns = ['count', ...ORDER.map((n) => (GROUPS[n] as { column: string }).column)].map(
    (c) => `context.columns.${c}`,
  );
  const types = [
    ...run.types.slice(0, 6),
    grouped.has('AdIds') ? 'Nullable(String)' : 'Array(String)',
    run.types[6],
  ];
  return queryResponse(
    { results: rows, columns, types, hogql: run.hogql },
    { seconds: run.seconds, modifiers: node.modifiers },
    { hasMore: run.rows.length > limit, limit, offset },
  );
}

export const sessionAttributionRunner: QueryRunner = {
  check: (node: QueryNode) => check(node as unknown as AttributionNode) as unknown as QueryNode,
  run: (node, ctx) => runSessionAttribution(node as unknown as AttributionNode, ctx),
  staleness: { interval: 'minute' },
};
