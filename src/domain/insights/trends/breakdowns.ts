import { call, compare, constant, type Expr } from '../../../hogql/ast.js';
import { BREAKDOWN_OTHER, BREAKDOWN_TYPES, badBreakdown, propertyValue } from './breakdown.js';
import type { BreakdownFilter, BreakdownItem } from './node.js';

/** PostHog's maximum number of `breakdowns`. */
export const MAX_BREAKDOWNS = 3;
/**
 * Joins the values of several breakdowns into one grouping key. A control character (unit
 * separator) because it does not occur in property values people break down by.
 */
const SEPARATOR = '\u001f';

/** Validates `breakdowns`; true when it holds at least one breakdown. */
export function checkBreakdownList(list: unknown): boolean {
  if (list === undefined || list === null) return false;
  const attr = 'breakdownFilter.breakdowns';
  if (!Array.isArray(list)) throw badBreakdown(attr, 'breakdowns must be a list.');
  if (list.length > MAX_BREAKDOWNS)
    throw badBreakdown(attr, `breakdowns should have at most ${MAX_BREAKDOWNS} items.`);
  list.forEach((b: unknown, i) => {
    const at = `${attr}.${i}`;
    if (typeof b !== 'object' || b === null || Array.isArray(b))
      throw badBreakdown(at, 'Each breakdown must be an object {type, property}.');
    const item = b as Record<string, unknown>;
    const type = item.type ?? 'event';
    if (typeof type !== 'string' || !BREAKDOWN_TYPES.includes(type))
      throw badBreakdown(
        `${at}.type`,
        `Unsupported breakdown type "${String(type).slice(0, 50)}": use one of ${BREAKDOWN_TYPES.join(', ')}.`,
      );
    if (typeof item.property !== 'string' || item.property === '')
      throw badBreakdown(`${at}.property`, 'property must be a property name or a HogQL expression.');
    // Like the single breakdown, URL normalization and histograms are not built yet.
    if (item.normalize_url === true)
      throw badBreakdown(`${at}.normalize_url`, 'normalize_url is not supported yet.');
    if (item.histogram_bin_count !== undefined && item.histogram_bin_count !== null)
      throw badBreakdown(`${at}.histogram_bin_count`, 'Histogram breakdowns are not supported yet.');
  });
  return list.length > 0;
}

const itemValue = (b: BreakdownItem): Expr => propertyValue(b.type ?? 'event', b.property);

/** All breakdowns' values (each null-sentinelled) joined into one string key. */
export function joinedValues(list: BreakdownItem[]): Expr {
  if (list.length === 1) return itemValue(list[0]!);
  const parts: Expr[] = [];
  list.forEach((b, i) => {
    if (i) parts.push(constant(SEPARATOR));
    parts.push(itemValue(b));
  });
  return call('concat', parts);
}

/** The `breakdown_value` of a result: the key itself, or a list of values for `breakdowns`. */
export function resultValue(filter: BreakdownFilter, key: string): string | string[] {
  const n = filter.breakdowns?.length ?? 0;
  if (!n) return key;
  // PostHog folds the remaining combinations into one "other" entry, the sentinel per breakdown.
  if (key === BREAKDOWN_OTHER) return Array.from({ length: n }, () => BREAKDOWN_OTHER);
  return key.split(SEPARATOR);
}

/** A breakdown value as it appears in a label: several values joined with `::`. */
export const valueLabel = (value: string | string[]): string =>
  Array.isArray(value) ? value.join('::') : value;

/**
 * Conditions narrowing events to one breakdown value of an InsightActorsQuery: a string for a
 * single breakdown, a list (one value per breakdown) for `breakdowns`.
 */
export function valueConditions(filter: BreakdownFilter, value: string | string[]): Expr[] {
  const list = filter.breakdowns;
  if (!list?.length)
    return [
      compare(
        '==',
        propertyValue(filter.breakdown_type ?? 'event', filter.breakdown as string),
        constant(String(value)),
      ),
    ];
  if (!Array.isArray(value) || value.length !== list.length)
    throw badBreakdown('breakdown', `breakdown must be a list of ${list.length} values, one per breakdown.`);
  return list.map((b, i) => compare('==', itemValue(b), constant(String(value[i]))));
}
