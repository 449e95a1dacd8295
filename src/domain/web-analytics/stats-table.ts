import { call, compare, type Expr } from '../../hogql/ast.js';
import { parseExpr, parseSelect } from '../../hogql/parse.js';
import { propertiesToExpr } from '../../hogql/property-filters.js';
import type { QueryResult, RunnerContext } from '../query/context.js';
import type { QueryNode } from '../query/kinds.js';
import { queryResponse } from '../query/response.js';
import type { QueryRunner } from '../query/run.js';
import { runSelect } from '../query/run-select.js';
import {
  at_,
  checkWebNode,
  filterExpr,
  goalExpr,
  invalid,
  num,
  periodConds,
  periods,
  sessionRows,
  type WebNode,
} from './common.js';
import { CLICKS } from './external-clicks.js';
import { cleanedPath, type PathCleaning, pathCleaningOf } from './path-cleaning.js';

const prop = (k: string) => `properties.${k}`;
const ses = (k: string) => `session.${k}`;

/** PostHog's WebStatsBreakdown values Burrow answers, and the HogQL each groups by. */
export const BREAKDOWNS: Record<string, string> = {
  Page: prop('$pathname'),
  InitialPage: ses('$entry_pathname'),
  ExitPage: ses('$end_pathname'),
  InitialReferringDomain: ses('$entry_referring_domain'),
  // PostHog reads the session's entry referrer from the event (posthog-js sets it on every event).
  InitialReferringURL: `cutQueryStringAndFragment(${prop('$session_entry_referrer')})`,
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
  ScreenName: prop('$screen_name'),
};

/** Breakdowns on a path: `doPathCleaning` applies the project's rules to them. */
const PATH_BREAKDOWNS = new Set(['Page', 'InitialPage', 'ExitPage']);

/**
 * PreviousPage, as PostHog: the SPA's previous pathname; else the referrer's path when it is on
 * the same domain (cleaned too); else the external referrer as is.
 */
function previousPage(rules: PathCleaning): Expr {
  const referrer = parseExpr('properties.$referrer');
  return call('multiIf', [
    call('isNotNull', [parseExpr('properties.$prev_pageview_pathname')]),
    cleanedPath('properties.$prev_pageview_pathname', rules),
    compare('==', parseExpr('domain(properties.$current_url)'), parseExpr('domain(properties.$referrer)')),
    cleanedPath('path(properties.$referrer)', rules),
    referrer,
  ]);
}

/** The breakdown's expression, path cleaning applied where PostHog applies it. */
function breakdownExpr(breakdownBy: string, rules: PathCleaning): Expr {
  if (breakdownBy === 'PreviousPage') return previousPage(rules);
  if (breakdownBy === 'FrustrationMetrics') return cleanedPath(prop('$pathname'), rules);
  if (breakdownBy === 'ExitClick') return parseExpr('true'); // joined in exitClickRows
  const text = BREAKDOWNS[breakdownBy] as string;
  return PATH_BREAKDOWNS.has(breakdownBy) ? cleanedPath(text, rules) : parseExpr(text);
}

/** Breakdowns with their own query (not a plain expression over pageviews). */
const SPECIAL = ['PreviousPage', 'FrustrationMetrics', 'ExitClick'];

/**
 * ExitClick: the session's last outbound click (PostHog's `session.$last_external_click_url`,
 * which Burrow's sessions do not keep), from the clicks in the window, joined to the per-session
 * rows; sessions without one are left out.
 */
function exitClickRows(p: ReturnType<typeof periods>, goal: boolean): string {
  const conv = goal
    ? ', s.conversion_count AS conversion_count, s.conversion_person_id AS conversion_person_id'
    : '';
  return `SELECT s.person_id AS person_id, s.session_id AS session_id, s.views AS views, s.duration AS duration,
      s.bounce AS bounce, s.start AS start, c.url AS breakdown_value${conv}
    FROM (${sessionRows(p, { goal })}) AS s
    JOIN (SELECT $session_id AS sid, argMax(toString(properties.$external_click_url), timestamp) AS url
      FROM events
      WHERE ${CLICKS} AND $session_id IS NOT NULL AND $session_id != ''
        AND timestamp >= ${at_(p.prevFrom ?? p.from)} AND timestamp < ${at_(p.to)}
      GROUP BY sid) AS c ON s.session_id = c.sid`;
}

/**
 * PostHog's WebAnalyticsOrderByFields and the column each sorts by here; as PostHog, a field
 * whose column this answer does not have falls back to the default order.
 */
const ORDER_FIELDS: Record<string, string | null> = {
  Visitors: 'c_visitors',
  Views: 'c_views',
  BounceRate: 'c_bounce',
  AvgTimeOnPage: null,
  Clicks: null,
  AverageScrollPercentage: null,
  ScrollGt80Percentage: null,
  TotalConversions: 'c_conv',
  UniqueConversions: 'c_uconv',
  ConversionRate: 'c_rate',
  ConvertingUsers: null,
  RageClicks: null,
  DeadClicks: null,
  Errors: null,
};
/** The sort columns each shape of answer has. */
const PLAIN_ORDER = new Set(['c_visitors', 'c_views', 'c_bounce']);
const GOAL_ORDER = new Set(['c_visitors', 'c_conv', 'c_uconv', 'c_rate']);

interface StatsNode extends WebNode {
  breakdownBy: string;
  includeBounceRate?: boolean;
  includeScrollDepth?: boolean;
  includeAvgTimeOnPage?: boolean;
  doPathCleaning?: boolean;
  orderBy?: unknown;
  limit?: number;
  offset?: number;
}

export function checkStatsNode(node: StatsNode): StatsNode {
  checkWebNode(node);
  const b = node.breakdownBy;
  if (typeof b !== 'string' || (!Object.hasOwn(BREAKDOWNS, b) && !SPECIAL.includes(b))) {
    throw invalid(
      `breakdownBy ${JSON.stringify(b ?? null)} is not a WebStatsBreakdown. Supported: ${[...Object.keys(BREAKDOWNS), ...SPECIAL].join(', ')}.`,
      'breakdownBy',
    );
  }
  if (node.limit != null && (!Number.isInteger(node.limit) || node.limit < 1 || node.limit > 10000))
    throw invalid('limit must be an integer from 1 to 10000', 'limit');
  for (const flag of [
    'includeBounceRate',
    'includeScrollDepth',
    'includeAvgTimeOnPage',
    'doPathCleaning',
  ] as const)
    if (node[flag] != null && typeof node[flag] !== 'boolean')
      throw invalid(`${flag} must be a boolean`, flag);
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
 * (current, previous) pair, for sessions that started in the period. With a `conversionGoal`
 * the columns are PostHog's conversion set instead: visitors, total conversions (goal events),
 * unique conversions (persons with one) and the conversion rate (unique conversions / visitors).
 */
export async function runWebStatsTable(node: StatsNode, ctx: RunnerContext): Promise<QueryResult> {
  const p = periods(node, ctx);
  const { cur, prev } = periodConds(p);
  const limit = node.limit ?? 100;
  const offset = node.offset ?? 0;
  const rules = node.doPathCleaning === true ? pathCleaningOf(ctx) : [];
  if (node.breakdownBy === 'FrustrationMetrics') return runFrustration(node, ctx, rules);
  const goal = goalExpr(node);
  // PostHog's Page table with average time on page always carries the bounce rate too.
  const avgTime = !goal && node.breakdownBy === 'Page' && node.includeAvgTimeOnPage === true;
  const bounce = !goal && (node.includeBounceRate === true || avgTime);
  const defaults = goal ? ['c_uconv', 'c_conv', 'c_visitors'] : ['c_visitors', 'c_views'];
  const [orderField, orderDir] = (node.orderBy as [string, string] | undefined) ?? [null, 'DESC'];
  const wanted = orderField ? ORDER_FIELDS[orderField] : null;
  const first = wanted && (goal ? GOAL_ORDER : PLAIN_ORDER).has(wanted) ? wanted : null;
  const order = [
    ...(first ? [`${first} ${orderDir}`] : []),
    ...defaults.filter((c) => c !== first).map((c) => `${c} DESC`),
    'breakdown_value ASC',
  ];
  const rate = (u: string, v: string) => `if(${v} = 0, NULL, ${u} / ${v})`;
  const metrics = goal
    ? `sumIf(conversion_count, ${cur}) AS c_conv, sumIf(conversion_count, ${prev}) AS p_conv,
      uniqIf(conversion_person_id, ${cur}) AS c_uconv, uniqIf(conversion_person_id, ${prev}) AS p_uconv,
      ${rate(`uniqIf(conversion_person_id, ${cur})`, `uniqIf(person_id, ${cur})`)} AS c_rate,
      ${rate(`uniqIf(conversion_person_id, ${prev})`, `uniqIf(person_id, ${prev})`)} AS p_rate`
    : `sumIf(views, ${cur}) AS c_views, sumIf(views, ${prev}) AS p_views,
      avgIf(bounce, ${cur}) AS c_bounce, avgIf(bounce, ${prev}) AS p_bounce`;
  const rows =
    node.breakdownBy === 'ExitClick'
      ? exitClickRows(p, goal !== null)
      : sessionRows(p, {
          select: '{bd} AS breakdown_value',
          groupBy: 'breakdown_value',
          goal: goal !== null,
        });
  const text = `SELECT breakdown_value,
      uniqIf(person_id, ${cur}) AS c_visitors, uniqIf(person_id, ${prev}) AS p_visitors,
      ${metrics}
    FROM (${rows})
    WHERE breakdown_value IS NOT NULL AND ((${cur}) OR (${prev}))
    GROUP BY breakdown_value
    HAVING ${goal ? 'c_visitors > 0' : 'c_visitors > 0 OR c_views > 0'}
    ORDER BY ${order.join(', ')}
    LIMIT ${limit + 1} OFFSET ${offset}`;
  const run = await runSelect(parseSelect(text), ctx, {
    modifiers: node.modifiers,
    exprs: {
      filters: filterExpr(node, ctx),
      bd: breakdownExpr(node.breakdownBy, rules),
      ...(goal ? { goal } : {}),
    },
  });
  // Scroll depth: PostHog adds it to the Page table with bounce rate.
  const scroll =
    !goal &&
    node.includeScrollDepth === true &&
    node.includeBounceRate === true &&
    node.breakdownBy === 'Page'
      ? await scrollDepth(node, ctx, p, rules)
      : null;
  const times = avgTime ? await timeOnPage(node, ctx, p, rules) : null;
  const compare = p.prevFrom !== null;
  const hasMore = run.rows.length > limit;
  const results = run.rows.slice(0, limit).map((r) => {
    const n = r.map(num);
    const pair = (i: number, zero: boolean) => [
      n[i] ?? (zero ? 0 : null),
      compare ? (n[i + 1] ?? (zero ? 0 : null)) : null,
    ];
    if (goal) return [r[0], pair(1, true), pair(3, true), pair(5, true), pair(7, false)];
    const out: unknown[] = [r[0], pair(1, true), pair(3, true)];
    if (times) {
      const t = times.get(JSON.stringify(r[0]));
      out.push([t?.[0] ?? 0, compare ? (t?.[1] ?? 0) : null]);
    }
    if (bounce) out.push(pair(5, false));
    if (scroll) {
      const s = scroll.get(JSON.stringify(r[0])) ?? [null, null, null, null];
      out.push([s[0], compare ? s[1] : null], [s[2], compare ? s[3] : null]);
    }
    return out;
  });
  const col = (c: string) => `context.columns.${c}`;
  const [columns, types] = goal
    ? [
        ['breakdown_value', 'visitors', 'total_conversions', 'unique_conversions', 'conversion_rate'].map(
          col,
        ),
        [
          'String',
          'Tuple(UInt64, UInt64)',
          'Tuple(UInt64, UInt64)',
          'Tuple(UInt64, UInt64)',
          'Tuple(Float64, Float64)',
        ],
      ]
    : [
        [
          'breakdown_value',
          'visitors',
          'views',
          ...(times ? ['avg_time_on_page'] : []),
          ...(bounce ? ['bounce_rate'] : []),
          ...(scroll ? ['average_scroll_percentage', 'scroll_gt80_percentage'] : []),
        ].map(col),
        [
          'String',
          'Tuple(UInt64, UInt64)',
          'Tuple(UInt64, UInt64)',
          ...(times ? ['Tuple(Float64, Float64)'] : []),
          ...(bounce ? ['Tuple(Float64, Float64)'] : []),
          ...(scroll ? ['Tuple(Float64, Float64)', 'Tuple(Float64, Float64)'] : []),
        ],
      ];
  return queryResponse(
    {
      results,
      columns,
      types,
      hogql: run.hogql,
      samplingRate: { numerator: 1 },
      usedPreAggregatedTables: false,
    },
    { seconds: run.seconds, modifiers: node.modifiers },
    { hasMore, limit, offset },
  );
}

/**
 * Average time on page, as PostHog defines it: the 90th percentile of `$prev_pageview_duration`
 * (capped at a day) on the `$pageview`, `$pageleave` and `$screen` events that leave a page,
 * per page left (`$prev_pageview_pathname`), each period by the event's own time; keyed by the
 * JSON of the path.
 */
async function timeOnPage(
  node: StatsNode,
  ctx: RunnerContext,
  p: ReturnType<typeof periods>,
  rules: PathCleaning,
): Promise<Map<string, (number | null)[]>> {
  const inT = (a: Date, b: Date) => `timestamp >= ${at_(a)} AND timestamp < ${at_(b)}`;
  const prevT = p.prevFrom ? inT(p.prevFrom, p.from) : 'false';
  const text = `SELECT breakdown_value, quantileIf(0.9)(d, ${inT(p.from, p.to)}), quantileIf(0.9)(d, ${prevT})
    FROM (SELECT {bd} AS breakdown_value, least(toFloat(properties.$prev_pageview_duration), 86400) AS d, timestamp
      FROM events
      WHERE event IN ('$pageview', '$pageleave', '$screen') AND properties.$prev_pageview_duration IS NOT NULL
        AND ${inT(p.prevFrom ?? p.from, p.to)} AND {filters})
    WHERE breakdown_value IS NOT NULL AND d IS NOT NULL
    GROUP BY breakdown_value`;
  return perLeftPage(text, node, ctx, rules);
}

/**
 * Runs a query over the page being left (`{bd}`: the cleaned `$prev_pageview_pathname`, `{filters}`:
 * scrollFilters) and keys its rows' other columns by the JSON of that path.
 */
async function perLeftPage(
  text: string,
  node: StatsNode,
  ctx: RunnerContext,
  rules: PathCleaning,
): Promise<Map<string, (number | null)[]>> {
  const run = await runSelect(parseSelect(text), ctx, {
    modifiers: node.modifiers,
    exprs: {
      filters: scrollFilters(node, ctx),
      bd: cleanedPath('properties.$prev_pageview_pathname', rules),
    },
  });
  return new Map(run.rows.map((r) => [JSON.stringify(r[0]), r.slice(1).map(num)]));
}

/** The query's filters for scroll rows: a `$pathname` filter reads the page being left instead. */
function scrollFilters(node: StatsNode, ctx: RunnerContext): Expr {
  const swap = (f: unknown): unknown => {
    if (!f || typeof f !== 'object') return f;
    const o = f as Record<string, unknown>;
    if (Array.isArray(o.values)) return { ...o, values: o.values.map(swap) };
    return o.type === 'event' && o.key === '$pathname' ? { ...o, key: '$prev_pageview_pathname' } : o;
  };
  const own = Array.isArray(node.properties) ? node.properties.map(swap) : swap(node.properties ?? []);
  const parts: Expr[] = [propertiesToExpr(own as never)];
  if (node.filterTestAccounts === true && ctx.testAccountFilters)
    parts.push(propertiesToExpr(swap(ctx.testAccountFilters) as never));
  return parts.length === 1 ? (parts[0] as Expr) : { node: 'And', exprs: parts };
}

/**
 * Average scroll depth and the share of page exits past 80% of the content, per page being left
 * (`$prev_pageview_pathname` on the next pageview or the pageleave), as (current, previous)
 * pairs by the session's start; keyed by the JSON of the path.
 */
async function scrollDepth(
  node: StatsNode,
  ctx: RunnerContext,
  p: ReturnType<typeof periods>,
  rules: PathCleaning,
): Promise<Map<string, (number | null)[]>> {
  const { cur, prev } = periodConds(p);
  const content = 'toFloat(properties.$prev_pageview_max_content_percentage)';
  const text = `SELECT breakdown_value, avgIf(scroll, ${cur}), avgIf(scroll, ${prev}), avgIf(gt80, ${cur}), avgIf(gt80, ${prev})
    FROM (SELECT {bd} AS breakdown_value, toFloat(properties.$prev_pageview_max_scroll_percentage) AS scroll,
        multiIf(${content} IS NULL, NULL, ${content} > 0.8, 1, 0) AS gt80, session.$start_timestamp AS start
      FROM events
      WHERE event IN ('$pageview', '$pageleave', '$screen') AND $session_id IS NOT NULL AND $session_id != ''
        AND timestamp >= ${at_(p.prevFrom ?? p.from)} AND timestamp < ${at_(p.to)} AND {filters})
    WHERE breakdown_value IS NOT NULL AND ((${cur}) OR (${prev}))
    GROUP BY breakdown_value`;
  return perLeftPage(text, node, ctx, rules);
}

/**
 * FrustrationMetrics: rage clicks, dead clicks and exceptions per page, as (current, previous)
 * pairs by the session's start; pages with none are left out; most errors first.
 */
async function runFrustration(
  node: StatsNode,
  ctx: RunnerContext,
  rules: PathCleaning,
): Promise<QueryResult> {
  const p = periods(node, ctx);
  const { cur, prev } = periodConds(p);
  const limit = node.limit ?? 100;
  const offset = node.offset ?? 0;
  const text = `SELECT breakdown_value, sumIf(rage, ${cur}) AS c_rage, sumIf(rage, ${prev}) AS p_rage,
      sumIf(dead, ${cur}) AS c_dead, sumIf(dead, ${prev}) AS p_dead,
      sumIf(errors, ${cur}) AS c_errors, sumIf(errors, ${prev}) AS p_errors
    FROM (SELECT {bd} AS breakdown_value, $session_id AS session_id, countIf(event = '$rageclick') AS rage,
        countIf(event = '$dead_click') AS dead, countIf(event = '$exception') AS errors,
        min(session.$start_timestamp) AS start
      FROM events
      WHERE event IN ('$pageview', '$screen', '$rageclick', '$dead_click', '$exception')
        AND $session_id IS NOT NULL AND $session_id != ''
        AND timestamp >= ${at_(p.prevFrom ?? p.from)} AND timestamp < ${at_(p.to)} AND {filters}
      GROUP BY session_id, breakdown_value)
    WHERE breakdown_value IS NOT NULL AND ((${cur}) OR (${prev}))
    GROUP BY breakdown_value
    HAVING c_rage > 0 OR c_dead > 0 OR c_errors > 0 OR p_rage > 0 OR p_dead > 0 OR p_errors > 0
    ORDER BY c_errors DESC, p_errors DESC, c_rage DESC, p_rage DESC, c_dead DESC, p_dead DESC, breakdown_value ASC
    LIMIT ${limit + 1} OFFSET ${offset}`;
  const run = await runSelect(parseSelect(text), ctx, {
    modifiers: node.modifiers,
    exprs: { filters: filterExpr(node, ctx), bd: breakdownExpr('FrustrationMetrics', rules) },
  });
  const compare = p.prevFrom !== null;
  const rows = run.rows
    .slice(0, limit)
    .map((r) => {
      const n = r.map(num);
      const pair = (i: number) => [n[i] ?? 0, compare ? (n[i + 1] ?? 0) : null];
      return [r[0], pair(1), pair(3), pair(5)];
    })
    // Without a comparison only the current period counts (PostHog compares (current, NULL) > (0, 0)).
    .filter((r) => compare || (r.slice(1) as number[][]).some((x) => (x[0] as number) > 0));
  return queryResponse(
    {
      results: rows,
      columns: [
        'context.columns.breakdown_value',
        'context.columns.rage_clicks',
        'context.columns.dead_clicks',
        'context.columns.errors',
      ],
      types: ['String', 'Tuple(UInt64, UInt64)', 'Tuple(UInt64, UInt64)', 'Tuple(UInt64, UInt64)'],
      hogql: run.hogql,
      samplingRate: { numerator: 1 },
      usedPreAggregatedTables: false,
    },
    { seconds: run.seconds, modifiers: node.modifiers },
    { hasMore: run.rows.length > limit, limit, offset },
  );
}

export const webStatsTableRunner: QueryRunner = {
  check: (node: QueryNode) => checkStatsNode(node as StatsNode),
  run: (node, ctx) => runWebStatsTable(node as StatsNode, ctx),
  staleness: { interval: 'minute' },
};
