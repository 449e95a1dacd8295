import { ApiError } from '../../errors.js';
import { compare, constant, type Expr, field } from '../../hogql/ast.js';
import { type AnyProperties, at, propertiesToExpr } from '../../hogql/property-filters.js';
import { actionToExpr } from '../actions/predicate.js';
import { RESOLVED, resolvedAction } from '../actions/resolve.js';
import type { RunnerContext } from '../query/context.js';
import { type DateRangeInput, resolveDateRange } from '../time/date-range.js';

/** The fields every web analytics kind shares (PostHog's WebAnalyticsQueryBase). */
export interface WebNode {
  kind: string;
  dateRange?: DateRangeInput | null;
  properties?: AnyProperties;
  compareFilter?: { compare?: boolean | null; compare_to?: string | null } | null;
  filterTestAccounts?: boolean | null;
  modifiers?: Record<string, unknown>;
  [key: string]: unknown;
}

export const invalid = (detail: string, attr: string) =>
  new ApiError(400, 'validation_error', 'invalid_input', detail, attr);

/** Checks the shared fields' shapes (400 in PostHog's shape, never a 500 later). */
export function checkWebNode(node: WebNode): void {
  if (node.dateRange != null && (typeof node.dateRange !== 'object' || Array.isArray(node.dateRange)))
    throw invalid('dateRange must be an object', 'dateRange');
  if (node.properties != null && !Array.isArray(node.properties) && typeof node.properties !== 'object')
    throw invalid('properties must be a list of property filters', 'properties');
  if (node.compareFilter != null && typeof node.compareFilter !== 'object')
    throw invalid('compareFilter must be an object', 'compareFilter');
  if (node.filterTestAccounts != null && typeof node.filterTestAccounts !== 'boolean')
    throw invalid('filterTestAccounts must be a boolean', 'filterTestAccounts');
  checkGoal(node);
  checkSampling(node);
}

const utc = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');
/** An instant as HogQL text (the value is ours, formatted here: nothing from the request). */
export const at_ = (d: Date) => `toDateTime('${utc(d)}', 'UTC')`;

export interface Periods {
  from: Date;
  to: Date;
  /** The previous period's start (it ends at `from`), or null without a comparison. */
  prevFrom: Date | null;
  dateFromText: string | null;
  dateToText: string;
}

/**
 * The current period (default the last 7 days, like PostHog's web analytics) and, with
 * `compareFilter.compare`, the previous period of the same length right before it.
 */
export function periods(node: WebNode, ctx: RunnerContext): Periods {
  const range = resolveDateRange(
    { date_from: node.dateRange?.date_from ?? '-7d', date_to: node.dateRange?.date_to ?? null },
    { timezone: ctx.timezone, now: ctx.now },
  );
  const from = range.dateFrom ?? new Date(0);
  const to = range.dateTo;
  const compare = node.compareFilter?.compare === true;
  const prevFrom =
    compare && range.dateFrom ? new Date(from.getTime() - (to.getTime() - from.getTime())) : null;
  return { from, to, prevFrom, dateFromText: range.dateFromText, dateToText: range.dateToText };
}

/** The query's property filters (event, person and session ones) and the test-account filters. */
export function filterExpr(node: WebNode, ctx: RunnerContext): Expr {
  const parts: Expr[] = [];
  const props = at('properties', () => propertiesToExpr(node.properties ?? []));
  parts.push(props);
  if (node.filterTestAccounts === true && ctx.testAccountFilters)
    parts.push(propertiesToExpr(ctx.testAccountFilters));
  return parts.length === 1 ? (parts[0] as Expr) : { node: 'And', exprs: parts };
}

export const TRUE = constant(true);

/**
 * The per-session rows every web kind aggregates: pageviews and screens in the window (the
 * previous period's start to the current end), one row per session (and `group` key), with the
 * session's start deciding which period it counts in.
 */
export function sessionRows(
  p: Periods,
  extra: { select?: string; groupBy?: string; goal?: boolean; events?: string } = {},
): string {
  const start = p.prevFrom ?? p.from;
  const page = extra.events ?? "event IN ('$pageview', '$screen')";
  const goal = extra.goal
    ? `, countIf({goal}) AS conversion_count, any(if({goal}, events.person_id, NULL)) AS conversion_person_id`
    : '';
  return `SELECT ${extra.select ? `${extra.select}, ` : ''}any(events.person_id) AS person_id, $session_id AS session_id,
      countIf(${page}) AS views${goal}, any(session.$session_duration) AS duration, any(toFloat(session.$is_bounce)) AS bounce,
      min(session.$start_timestamp) AS start
    FROM events
    WHERE ${extra.goal ? `(${page} OR {goal})` : page} AND $session_id IS NOT NULL AND $session_id != ''
      AND timestamp >= ${at_(start)} AND timestamp < ${at_(p.to)} AND {filters}
    GROUP BY session_id${extra.groupBy ? `, ${extra.groupBy}` : ''}`;
}

/** HogQL conditions on `start` for the current and previous periods. */
export function periodConds(p: Periods): { cur: string; prev: string } {
  return {
    cur: `start >= ${at_(p.from)} AND start < ${at_(p.to)}`,
    prev: p.prevFrom ? `start >= ${at_(p.prevFrom)} AND start < ${at_(p.from)}` : 'false',
  };
}

/** `conversionGoal`: a custom event name or an action (embedded by resolveActions). */
export function goalExpr(node: WebNode): Expr | null {
  const g = node.conversionGoal as Record<string, unknown> | null | undefined;
  if (g == null) return null;
  if (typeof g.customEventName === 'string')
    return compare('==', field('event'), constant(g.customEventName));
  return actionToExpr(resolvedAction(g, 'conversionGoal__actionId').steps);
}

/**
 * `conversionGoal` is PostHog's ActionConversionGoal `{actionId}` or CustomEventConversionGoal
 * `{customEventName}`: exactly one of them, nothing else (the action id's own checks and the
 * unknown-action 400 come from resolveActions, which embeds the action under RESOLVED).
 */
export function checkGoal(node: WebNode): void {
  const g = node.conversionGoal as Record<string, unknown> | null | undefined;
  if (g == null) return;
  const shape = 'conversionGoal must be {customEventName: string} or {actionId: integer}, not both';
  if (typeof g !== 'object' || Array.isArray(g)) throw invalid(shape, 'conversionGoal');
  const extra = Object.keys(g).filter((k) => k !== 'actionId' && k !== 'customEventName' && k !== RESOLVED);
  if (extra.length > 0)
    throw invalid(`conversionGoal has unknown field ${JSON.stringify(extra[0])}`, 'conversionGoal');
  const hasAction = g.actionId != null;
  const hasEvent = g.customEventName != null;
  if (hasAction === hasEvent) throw invalid(shape, 'conversionGoal');
  if (
    hasEvent &&
    (typeof g.customEventName !== 'string' ||
      g.customEventName.length === 0 ||
      g.customEventName.length > 400)
  )
    throw invalid(
      'conversionGoal.customEventName must be a non-empty string of at most 400 characters',
      'conversionGoal__customEventName',
    );
}

/**
 * `sampling: {enabled, forceSamplingRate: {numerator, denominator}}`, PostHog's shape. Burrow
 * reads every event (chDB answers these at full resolution fast enough), so the answer's
 * `samplingRate` is always 1; the shape is still checked.
 */
export function checkSampling(node: WebNode): void {
  const s = node.sampling as Record<string, unknown> | null | undefined;
  if (s == null) return;
  if (typeof s !== 'object' || Array.isArray(s)) throw invalid('sampling must be an object', 'sampling');
  if (s.enabled != null && typeof s.enabled !== 'boolean')
    throw invalid('sampling.enabled must be a boolean', 'sampling__enabled');
  const r = s.forceSamplingRate as Record<string, unknown> | null | undefined;
  if (r == null) return;
  const positive = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0;
  if (
    typeof r !== 'object' ||
    Array.isArray(r) ||
    !positive(r.numerator) ||
    (r.denominator != null && !positive(r.denominator)) ||
    (r.numerator as number) > ((r.denominator as number | undefined) ?? 1)
  )
    throw invalid(
      'sampling.forceSamplingRate must be {numerator, denominator} with 0 < numerator <= denominator',
      'sampling__forceSamplingRate',
    );
}

export const num = (v: unknown): number | null => {
  if (v === null || v === undefined) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
};
