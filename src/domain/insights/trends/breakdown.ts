import { ApiError } from '../../../errors.js';
import { call, compare, constant, type Expr, field } from '../../../hogql/ast.js';
import { parseExpr } from '../../../hogql/parse.js';
import type { BreakdownFilter, BreakdownItem } from './node.js';

/** PostHog's sentinels for the "other" bucket and for events without a value. */
export const BREAKDOWN_OTHER = '$$_posthog_breakdown_other_$$';
export const BREAKDOWN_NULL = '$$_posthog_breakdown_null_$$';
/** PostHog's default breakdown_limit. */
export const DEFAULT_BREAKDOWN_LIMIT = 25;

export const BREAKDOWN_TYPES = ['event', 'person', 'session', 'hogql', 'cohort'];
/** Types allowed in `breakdowns` (several at once): PostHog's multiple breakdowns exclude cohorts. */
const LIST_TYPES = BREAKDOWN_TYPES.filter((t) => t !== 'cohort');

export const badBreakdown = (attr: string, detail: string) =>
  new ApiError(400, 'validation_error', 'invalid_input', detail, attr);

/** Validates breakdownFilter; returns null when there is no breakdown. */
export function checkBreakdown(filter: unknown): BreakdownFilter | null {
  if (filter === undefined || filter === null) return null;
  if (typeof filter !== 'object' || Array.isArray(filter))
    throw badBreakdown('breakdownFilter', 'breakdownFilter must be an object');
  const f = filter as Record<string, unknown>;
  const single = f.breakdown !== undefined && f.breakdown !== null && f.breakdown !== '';
  const multiple = checkBreakdownList(f.breakdowns);
  if (multiple && single)
    throw badBreakdown(
      'breakdownFilter.breakdowns',
      'Set either `breakdown` or `breakdowns` (a list of up to 3), not both.',
    );
  if (!single && !multiple) return null;
  const limit = f.breakdown_limit;
  if (
    limit !== undefined &&
    limit !== null &&
    (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 1000)
  )
    throw badBreakdown(
      'breakdownFilter.breakdown_limit',
      'breakdown_limit must be an integer from 1 to 1000.',
    );
  if (multiple) return f as BreakdownFilter;
  const type = f.breakdown_type ?? 'event';
  if (typeof type !== 'string' || !BREAKDOWN_TYPES.includes(type))
    throw badBreakdown(
      'breakdownFilter.breakdown_type',
      `Unsupported breakdown_type "${String(type).slice(0, 50)}": use one of ${BREAKDOWN_TYPES.join(', ')}.`,
    );
  if (type === 'cohort') {
    checkCohortList(f.breakdown);
    return f as BreakdownFilter;
  }
  if (typeof f.breakdown !== 'string')
    throw badBreakdown(
      'breakdownFilter.breakdown',
      'breakdown must be a property name or a HogQL expression (a string).',
    );
  return f as BreakdownFilter;
}

/** One breakdown's value as a string, empty and missing values as the null sentinel. */
export function propertyValue(type: string, key: string): Expr {
  let raw: Expr;
  switch (type) {
    case 'person':
      raw = field('person', 'properties', key);
      break;
    case 'session':
      raw = field('session', key);
      break;
    case 'hogql':
      raw = parseExpr(key);
      break;
    default:
      raw = field('properties', key);
  }
  return call('ifNull', [call('nullIf', [call('toString', [raw]), constant('')]), constant(BREAKDOWN_NULL)]);
}

/**
 * The value a trends query groups by: the single breakdown's value, or the values of all
 * `breakdowns` joined into one string key (split back by `resultValue`).
 */
export function breakdownValue(filter: BreakdownFilter): Expr {
  if (filter.breakdowns?.length) return joinedValues(filter.breakdowns);
  if (filter.breakdown_type === 'cohort') return cohortValue(cohortBreakdown(filter));
  return propertyValue(filter.breakdown_type ?? 'event', filter.breakdown as string);
}

// Several breakdowns (`breakdowns`, up to three) grouped as one.

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
    if (typeof type !== 'string' || !LIST_TYPES.includes(type))
      throw badBreakdown(
        `${at}.type`,
        `Unsupported breakdown type "${String(type).slice(0, 50)}": use one of ${LIST_TYPES.join(', ')}.`,
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
export function resultValue(filter: BreakdownFilter, key: string): string | string[] | number {
  if (filter.breakdown_type === 'cohort' && !filter.breakdowns?.length)
    return key === ALL_USERS ? key : Number(key);
  const n = filter.breakdowns?.length ?? 0;
  if (!n) return key;
  // PostHog folds the remaining combinations into one "other" entry, the sentinel per breakdown.
  if (key === BREAKDOWN_OTHER) return Array.from({ length: n }, () => BREAKDOWN_OTHER);
  return key.split(SEPARATOR);
}

/** A breakdown value as it appears in a label: several values joined with `::`. */
export const valueLabel = (value: string | string[] | number): string =>
  Array.isArray(value) ? value.join('::') : String(value);

/**
 * Conditions narrowing events to one breakdown value of an InsightActorsQuery: a string for a
 * single breakdown, a list (one value per breakdown) for `breakdowns`.
 */
export function valueConditions(filter: BreakdownFilter, value: string | string[]): Expr[] {
  const list = filter.breakdowns;
  if (!list?.length && filter.breakdown_type === 'cohort') {
    const v = String(value);
    if (v === ALL_USERS) return [];
    if (!cohortBreakdown(filter).includes(Number(v)))
      throw badBreakdown(
        'breakdown',
        `breakdown must be one of the insight's cohorts (got ${v.slice(0, 50)}).`,
      );
    return [compare('in cohort', field('person_id'), constant(Number(v)))];
  }
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

// Breakdown by cohorts: one group per cohort the event's person belongs to.

/** PostHog's breakdown value for "all users" (every event) in a cohort breakdown. */
export const ALL_USERS = 'all';
/** PostHog's label for the "all users" group. */
export const ALL_USERS_LABEL = 'all users';

/** Validates a cohort breakdown: a cohort id, `"all"`, or a non-empty list of them. */
function checkCohortList(raw: unknown): void {
  const list = Array.isArray(raw) ? raw : [raw];
  const attr = 'breakdownFilter.breakdown';
  if (list.length === 0 || list.length > 50)
    throw badBreakdown(attr, 'A cohort breakdown needs 1 to 50 cohort ids (or "all").');
  for (const v of list)
    if (v !== ALL_USERS && cohortId(v) === null)
      throw badBreakdown(attr, `"${String(v).slice(0, 50)}" is not a cohort id: use cohort ids or "all".`);
}

const cohortId = (v: unknown): number | null => {
  const n = typeof v === 'string' && /^\d{1,10}$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : null;
};

/** A checked cohort breakdown's entries in the order given, duplicates dropped. */
export function cohortBreakdown(filter: BreakdownFilter): Array<number | typeof ALL_USERS> {
  const raw: unknown[] = Array.isArray(filter.breakdown) ? filter.breakdown : [filter.breakdown];
  const out: Array<number | typeof ALL_USERS> = [];
  for (const v of raw) {
    const entry = v === ALL_USERS ? ALL_USERS : cohortId(v);
    if (entry !== null && !out.includes(entry)) out.push(entry);
  }
  return out;
}

/**
 * Every cohort of the list the event's person is in, one row each (arrayJoin): a person in two
 * cohorts counts in both, as PostHog's one-query-per-cohort does; "all" matches every event.
 */
export function cohortValue(entries: Array<number | typeof ALL_USERS>): Expr {
  const items = entries.map((e) =>
    e === ALL_USERS
      ? constant(ALL_USERS)
      : call('if', [
          compare('in cohort', field('person_id'), constant(e)),
          constant(String(e)),
          constant(null),
        ]),
  );
  const notNull = parseExpr('x -> isNotNull(x)');
  return call('arrayJoin', [call('arrayFilter', [notNull, { node: 'Array', exprs: items } as Expr])]);
}
