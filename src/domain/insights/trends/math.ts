import { ApiError } from '../../../errors.js';
import { call, constant, type Expr, field } from '../../../hogql/ast.js';
import { parseExpr } from '../../../hogql/parse.js';
import type { EventsSeries } from './node.js';

/** Math types Burrow computes; anything else (first_time_for_user, unique_group, ...) is a 400. */
export const MATHS = [
  'total',
  'dau',
  'weekly_active',
  'monthly_active',
  'unique_session',
  'sum',
  'avg',
  'min',
  'max',
  'median',
  'p75',
  'p90',
  'p95',
  'p99',
  'hogql',
] as const;
export type MathType = (typeof MATHS)[number];

const PROPERTY_MATHS = new Set(['sum', 'avg', 'min', 'max', 'median', 'p75', 'p90', 'p95', 'p99']);
const QUANTILES: Record<string, number> = { median: 0.5, p75: 0.75, p90: 0.9, p95: 0.95, p99: 0.99 };

/** Days a weekly/monthly active window spans. */
export const ACTIVE_WINDOW_DAYS: Partial<Record<MathType, number>> = { weekly_active: 7, monthly_active: 30 };

const bad = (attr: string, detail: string) =>
  new ApiError(400, 'validation_error', 'invalid_input', detail, attr);

/** Validates a series' math fields and returns its math type. */
export function checkMath(series: EventsSeries, index: number, allowed: readonly string[] = MATHS): MathType {
  const math = series.math ?? 'total';
  if (!allowed.includes(math)) {
    throw bad(
      `series.${index}.math`,
      `Unsupported math "${String(math).slice(0, 50)}": use one of ${allowed.join(', ')}.`,
    );
  }
  if (PROPERTY_MATHS.has(math) && !series.math_property) {
    throw bad(`series.${index}.math_property`, `Math "${math}" needs a math_property to aggregate.`);
  }
  if (math === 'hogql' && !series.math_hogql?.trim()) {
    throw bad(`series.${index}.math_hogql`, 'Math "hogql" needs a math_hogql expression.');
  }
  return math as MathType;
}

function propertyOf(series: EventsSeries): Expr {
  const key = series.math_property as string;
  switch (series.math_property_type) {
    case 'person_properties':
      return field('person', 'properties', key);
    case 'session_properties':
      return field('session', key);
    default:
      return field('properties', key);
  }
}

/**
 * The aggregation of a bucket for a math type. Active-user maths aggregate distinct persons here;
 * their sliding window is built around this by the query.
 */
export function mathAggregate(series: EventsSeries, math: MathType): Expr {
  switch (math) {
    case 'total':
      return call('count', []);
    case 'dau':
    case 'weekly_active':
    case 'monthly_active':
      return call('count', [field('person_id')], { distinct: true });
    case 'unique_session':
      return call('count', [call('nullIf', [field('$session_id'), constant('')])], { distinct: true });
    case 'sum':
    case 'avg':
    case 'min':
    case 'max':
      return call(math, [call('toFloat', [propertyOf(series)])]);
    case 'hogql':
      return parseExpr(series.math_hogql as string);
    default:
      return call('quantile', [call('toFloat', [propertyOf(series)])], {
        params: [constant(QUANTILES[math] as number)],
      });
  }
}
