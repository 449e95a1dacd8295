import { call, constant, type Expr, field } from '../../../hogql/ast.js';
import { parseExpr } from '../../../hogql/parse.js';
import { ApiError } from '../../errors.js';
import type { BreakdownFilter } from './node.js';

/** PostHog's sentinels for the "other" bucket and for events without a value. */
export const BREAKDOWN_OTHER = '$$_posthog_breakdown_other_$$';
export const BREAKDOWN_NULL = '$$_posthog_breakdown_null_$$';
/** PostHog's default breakdown_limit. */
export const DEFAULT_BREAKDOWN_LIMIT = 25;

const TYPES = ['event', 'person', 'session', 'hogql'];

const bad = (attr: string, detail: string) =>
  new ApiError(400, 'validation_error', 'invalid_input', detail, attr);

/** Validates breakdownFilter; returns null when there is no breakdown. */
export function checkBreakdown(filter: unknown): BreakdownFilter | null {
  if (filter === undefined || filter === null) return null;
  if (typeof filter !== 'object' || Array.isArray(filter))
    throw bad('breakdownFilter', 'breakdownFilter must be an object');
  const f = filter as Record<string, unknown>;
  if (Array.isArray(f.breakdowns) && f.breakdowns.length)
    throw bad(
      'breakdownFilter.breakdowns',
      'Multiple breakdowns are not supported yet: use one `breakdown`.',
    );
  if (f.breakdown === undefined || f.breakdown === null || f.breakdown === '') return null;
  const type = f.breakdown_type ?? 'event';
  if (typeof type !== 'string' || !TYPES.includes(type))
    throw bad(
      'breakdownFilter.breakdown_type',
      `Unsupported breakdown_type "${String(type).slice(0, 50)}": use one of ${TYPES.join(', ')}.`,
    );
  if (typeof f.breakdown !== 'string')
    throw bad(
      'breakdownFilter.breakdown',
      'breakdown must be a property name or a HogQL expression (a string).',
    );
  const limit = f.breakdown_limit;
  if (
    limit !== undefined &&
    limit !== null &&
    (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 1000)
  )
    throw bad('breakdownFilter.breakdown_limit', 'breakdown_limit must be an integer from 1 to 1000.');
  return f as BreakdownFilter;
}

/** The breakdown value as a string, empty and missing values as the null sentinel. */
export function breakdownValue(filter: BreakdownFilter): Expr {
  const key = filter.breakdown as string;
  let raw: Expr;
  switch (filter.breakdown_type ?? 'event') {
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
