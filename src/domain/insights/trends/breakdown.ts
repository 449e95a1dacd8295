import { ApiError } from '../../../errors.js';
import { call, constant, type Expr, field } from '../../../hogql/ast.js';
import { parseExpr } from '../../../hogql/parse.js';
import { checkBreakdownList, joinedValues } from './breakdowns.js';
import type { BreakdownFilter } from './node.js';

/** PostHog's sentinels for the "other" bucket and for events without a value. */
export const BREAKDOWN_OTHER = '$$_posthog_breakdown_other_$$';
export const BREAKDOWN_NULL = '$$_posthog_breakdown_null_$$';
/** PostHog's default breakdown_limit. */
export const DEFAULT_BREAKDOWN_LIMIT = 25;

export const BREAKDOWN_TYPES = ['event', 'person', 'session', 'hogql'];

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
  return propertyValue(filter.breakdown_type ?? 'event', filter.breakdown as string);
}
