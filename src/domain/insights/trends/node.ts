import { ApiError } from '../../../errors.js';
import type { AnyProperties } from '../../../hogql/property-filters.js';
import { type ResolvedAction, resolvedAction } from '../../actions/resolve.js';
import type { QueryNode } from '../../query/kinds.js';
import type { DateRangeInput } from '../../time/date-range.js';
import type { TrendInterval } from '../../time/intervals.js';

/**
 * A series of an insight: PostHog's EventsNode, or an ActionsNode (`id`) whose definition
 * `resolveActions` embedded (DataWarehouseNode is refused).
 */
export interface EventsSeries {
  kind: 'EventsNode' | 'ActionsNode';
  event?: string | null;
  id?: number | string;
  name?: string | null;
  custom_name?: string | null;
  math?: string | null;
  math_property?: string | null;
  math_property_type?: string | null;
  math_hogql?: string | null;
  math_group_type_index?: number | null;
  properties?: AnyProperties;
  fixedProperties?: AnyProperties;
}

/** An ActionsNode series' embedded action (checkInsightNode made sure it is there). */
export const seriesAction = (s: EventsSeries): ResolvedAction | null =>
  s.kind === 'ActionsNode' ? resolvedAction(s as unknown as Record<string, unknown>, 'series') : null;

/** One entry of `breakdownFilter.breakdowns` (PostHog's Breakdown). */
export interface BreakdownItem {
  type?: string | null;
  property: string;
  normalize_url?: boolean | null;
  histogram_bin_count?: number | null;
}

export interface BreakdownFilter {
  breakdowns?: BreakdownItem[] | null;
  breakdown_type?: string | null;
  /** A property name or HogQL expression; for `cohort`, cohort ids and "all" (or one of them). */
  breakdown?: string | number | Array<string | number> | null;
  breakdown_limit?: number | null;
  breakdown_hide_other_aggregation?: boolean | null;
}

/** Fields TrendsQuery, StickinessQuery and LifecycleQuery share (InsightsQueryBase + series). */
export interface InsightNode extends QueryNode {
  series: EventsSeries[];
  interval?: TrendInterval | null;
  dateRange?: DateRangeInput | null;
  properties?: AnyProperties;
  filterTestAccounts?: boolean | null;
  modifiers?: Record<string, unknown>;
}

export interface TrendsNode extends InsightNode {
  kind: 'TrendsQuery';
  trendsFilter?: {
    display?: string | null;
    formula?: string | null;
    formulas?: string[] | null;
    formulaNodes?: Array<{ formula: string; custom_name?: string | null }> | null;
  } | null;
  breakdownFilter?: BreakdownFilter | null;
  compareFilter?: { compare?: boolean | null; compare_to?: string | null } | null;
}

export const INTERVALS: readonly TrendInterval[] = ['minute', 'hour', 'day', 'week', 'month'];

export function invalidInput(kind: string, attr: string, message: string): ApiError {
  return new ApiError(
    400,
    'validation_error',
    'parse_error',
    `1 validation error for QueryRequest\nquery.${kind}.${attr}: ${message}`,
    attr,
  );
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const present = (v: unknown) => v !== undefined && v !== null;

function optionalType(
  node: QueryNode,
  obj: Record<string, unknown>,
  path: string,
  key: string,
  type: string,
) {
  const v = obj[key];
  if (present(v) && typeof v !== type)
    throw invalidInput(node.kind, `${path}${key}`, `Input should be a valid ${type}`);
}

/** An object-valued field (or absent); `path` prefixes error attrs. */
export function optionalObjectField(node: QueryNode, key: string): Record<string, unknown> | undefined {
  const v = node[key];
  if (!present(v)) return undefined;
  if (!isObject(v)) throw invalidInput(node.kind, key, 'Input should be an object');
  return v;
}

/** Checks the shared fields; math values are checked by the runner that knows which it supports. */
export function checkInsightNode(node: QueryNode, opts: { minSeries?: number } = {}): InsightNode {
  const series = node.series;
  if (!Array.isArray(series))
    throw invalidInput(
      node.kind,
      'series',
      present(series) ? 'Input should be a valid list' : 'Field required',
    );
  if (series.length < (opts.minSeries ?? 0))
    throw invalidInput(node.kind, 'series', `List should have at least ${opts.minSeries} item`);
  if (series.length > 50) throw invalidInput(node.kind, 'series', 'List should have at most 50 items');
  series.forEach((s, i) => {
    if (!isObject(s)) throw invalidInput(node.kind, `series.${i}`, 'Input should be an object');
    if (s.kind === 'ActionsNode') resolvedAction(s, `series.${i}`);
    else if (s.kind !== 'EventsNode')
      throw new ApiError(
        400,
        'validation_error',
        'invalid_input',
        `Series of kind ${String(s.kind).slice(0, 50)} are not supported: use an EventsNode or ActionsNode series.`,
        `series.${i}`,
      );
    for (const k of [
      'event',
      'name',
      'custom_name',
      'math',
      'math_property',
      'math_hogql',
      'math_property_type',
    ])
      optionalType(node, s, `series.${i}.`, k, 'string');
  });
  const interval = node.interval;
  if (present(interval) && !INTERVALS.includes(interval as TrendInterval)) {
    throw invalidInput(node.kind, 'interval', "Input should be 'minute', 'hour', 'day', 'week' or 'month'");
  }
  const range = optionalObjectField(node, 'dateRange');
  if (range) for (const k of ['date_from', 'date_to']) optionalType(node, range, 'dateRange.', k, 'string');
  optionalType(node, node, '', 'filterTestAccounts', 'boolean');
  const props = node.properties;
  if (present(props) && typeof props !== 'object')
    throw invalidInput(node.kind, 'properties', 'Input should be a valid list');
  optionalObjectField(node, 'modifiers');
  return node as InsightNode;
}
