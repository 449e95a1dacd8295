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

const prop = (k: string) => `properties.${k}`;
const ses = (k: string) => `session.${k}`;

/** PostHog's WebStatsBreakdown values Burrow answers, and the HogQL each groups by. */
export const BREAKDOWNS: Record<string, string> = {
  Page: prop('$pathname'),
  InitialPage: ses('$entry_pathname'),
  ExitPage: ses('$end_pathname'),
  InitialReferringDomain: ses('$entry_referring_domain'),
  InitialUTMSource: ses('$entry_utm_source'),
  InitialUTMMedium: ses('$entry_utm_medium'),
  InitialUTMCampaign: ses('$entry_utm_campaign'),
  InitialUTMTerm: ses('$entry_utm_term'),
  InitialUTMContent: ses('$entry_utm_content'),
  InitialUTMSourceMediumCampaign: `concatWithSeparator(' / ', coalesce(nullIf(${ses('$entry_utm_source')}, ''), '(null)'), coalesce(nullIf(${ses('$entry_utm_medium')}, ''), '(null)'), coalesce(nullIf(${ses('$entry_utm_campaign')}, ''), '(null)'))`,
  InitialChannelType: ses('$channel_type'),
  Browser: prop('$browser'),
  OS: prop('$os'),
  DeviceType: prop('$device_type'),
  Viewport: `tuple(${prop('$viewport_width')}, ${prop('$viewport_height')})`,
  Country: prop('$geoip_country_code'),
  Region: `tuple(${prop('$geoip_country_code')}, ${prop('$geoip_subdivision_1_code')}, ${prop('$geoip_subdivision_1_name')})`,
  City: `tuple(${prop('$geoip_country_code')}, ${prop('$geoip_city_name')})`,
  Timezone: prop('$timezone'),
  Language: prop('$browser_language'),
};

/** PostHog's breakdowns Burrow does not answer yet: a clear 400 naming them. */
const KNOWN_UNSUPPORTED = ['ExitClick', 'PreviousPage', 'ScreenName', 'FrustrationMetrics'];

const ORDER_FIELDS: Record<string, string> = {
  Visitors: 'c_visitors',
  Views: 'c_views',
  BounceRate: 'c_bounce',
};

interface StatsNode extends WebNode {
  breakdownBy: string;
  includeBounceRate?: boolean;
  includeScrollDepth?: boolean;
  orderBy?: unknown;
  limit?: number;
  offset?: number;
}

export function checkStatsNode(node: StatsNode): StatsNode {
  checkWebNode(node);
  const b = node.breakdownBy;
  if (typeof b !== 'string' || !Object.hasOwn(BREAKDOWNS, b)) {
    const why = KNOWN_UNSUPPORTED.includes(String(b)) ? 'is not supported yet' : 'is not a WebStatsBreakdown';
    throw invalid(
      `breakdownBy ${JSON.stringify(b ?? null)} ${why}. Supported: ${Object.keys(BREAKDOWNS).join(', ')}.`,
      'breakdownBy',
    );
  }
  if (node.limit != null && (!Number.isInteger(node.limit) || node.limit < 1 || node.limit > 10000))
    throw invalid('limit must be an integer from 1 to 10000', 'limit');
  if (node.offset != null && (!Number.isInteger(node.offset) || node.offset < 0))
    throw invalid('offset must be a non-negative integer', 'offset');
  if (node.orderBy != null) {
    const o = node.orderBy;
    if (
      !Array.isArray(o) ||
      o.length !== 2 ||
      !Object.hasOwn(ORDER_FIELDS, String(o[0])) ||
      (o[1] !== 'ASC' && o[1] !== 'DESC')
    )
      throw invalid(`orderBy must be [${Object.keys(ORDER_FIELDS).join('|')}, ASC|DESC]`, 'orderBy');
  }
  return node;
}

/**
 * WebStatsTableQuery: visitors, views (and bounce rate) per breakdown value, each as a
 * (current, previous) pair, for sessions that started in the period.
 */
export async function runWebStatsTable(node: StatsNode, ctx: RunnerContext): Promise<QueryResult> {
  const p = periods(node, ctx);
  const { cur, prev } = periodConds(p);
  const limit = node.limit ?? 100;
  const offset = node.offset ?? 0;
  const breakdown = BREAKDOWNS[node.breakdownBy] as string;
  const [orderField, orderDir] = (node.orderBy as [string, string] | undefined) ?? ['Visitors', 'DESC'];
  const order = [
    `${ORDER_FIELDS[orderField]} ${orderDir}`,
    ...['c_visitors DESC', 'c_views DESC'].filter((o) => !o.startsWith(ORDER_FIELDS[orderField] as string)),
    'breakdown_value ASC',
  ];
  const text = `SELECT breakdown_value,
      uniqIf(person_id, ${cur}) AS c_visitors, uniqIf(person_id, ${prev}) AS p_visitors,
      sumIf(views, ${cur}) AS c_views, sumIf(views, ${prev}) AS p_views,
      avgIf(bounce, ${cur}) AS c_bounce, avgIf(bounce, ${prev}) AS p_bounce
    FROM (${sessionRows(p, { select: `${breakdown} AS breakdown_value`, groupBy: 'breakdown_value' })})
    WHERE breakdown_value IS NOT NULL AND ((${cur}) OR (${prev}))
    GROUP BY breakdown_value
    HAVING c_visitors > 0 OR c_views > 0
    ORDER BY ${order.join(', ')}
    LIMIT ${limit + 1} OFFSET ${offset}`;
  const run = await runSelect(parseSelect(text), ctx, {
    modifiers: node.modifiers,
    exprs: { filters: filterExpr(node, ctx) },
  });
  const compare = p.prevFrom !== null;
  const hasMore = run.rows.length > limit;
  const rows = run.rows.slice(0, limit).map((r) => {
    const n = r.map(num);
    const pair = (i: number, zero: boolean) => [
      n[i] ?? (zero ? 0 : null),
      compare ? (n[i + 1] ?? (zero ? 0 : null)) : null,
    ];
    const out: unknown[] = [r[0], pair(1, true), pair(3, true)];
    if (node.includeBounceRate) out.push(pair(5, false));
    return out;
  });
  const columns = ['context.columns.breakdown_value', 'context.columns.visitors', 'context.columns.views'];
  if (node.includeBounceRate) columns.push('context.columns.bounce_rate');
  return queryResponse(
    {
      results: rows,
      columns,
      types: [
        'String',
        'Tuple(UInt64, UInt64)',
        'Tuple(UInt64, UInt64)',
        ...(node.includeBounceRate ? ['Tuple(Float64, Float64)'] : []),
      ],
      hogql: run.hogql,
      samplingRate: { numerator: 1 },
      usedPreAggregatedTables: false,
    },
    { seconds: run.seconds, modifiers: node.modifiers },
    { hasMore, limit, offset },
  );
}

export const webStatsTableRunner: QueryRunner = {
  check: (node: QueryNode) => checkStatsNode(node as StatsNode),
  run: (node, ctx) => runWebStatsTable(node as StatsNode, ctx),
  staleness: { interval: 'minute' },
};
