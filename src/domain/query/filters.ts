import { ApiError } from '../../errors.js';
import { call, compare, constant, type Expr, field } from '../../hogql/ast.js';
import { type AnyProperties, at, propertiesToExpr } from '../../hogql/property-filters.js';
import { type DateRangeInput, resolveDateRange } from '../time/date-range.js';

export interface HogQLFilters {
  properties?: AnyProperties;
  dateRange?: DateRangeInput | null;
  filterTestAccounts?: boolean | null;
}

export interface DashboardFilter {
  date_from?: string | null;
  date_to?: string | null;
  properties?: unknown[] | null;
}

const utc = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');
const instant = (d: Date): Expr => call('toDateTime', [constant(utc(d)), constant('UTC')]);

const isTrue = (e: Expr) => e.node === 'Constant' && e.value === true;

/**
 * `{filters}`: the query's property filters, date range and (with `filterTestAccounts`) the
 * project's test-account filters over `events`, or `true` when there are none.
 */
export function filtersExpr(
  filters: HogQLFilters | null | undefined,
  timezone: string,
  now: Date,
  testAccountFilters?: AnyProperties,
): Expr {
  if (!filters) return constant(true);
  const parts: Expr[] = [];
  const props = at('filters__properties', () => propertiesToExpr(filters.properties));
  if (!isTrue(props)) parts.push(props);
  if (filters.filterTestAccounts === true && testAccountFilters) {
    const test = propertiesToExpr(testAccountFilters);
    if (!isTrue(test)) parts.push(test);
  }
  const range = filters.dateRange;
  if (range && (range.date_from || range.date_to)) {
    const r = resolveDateRange(range, { timezone, now });
    if (r.dateFrom && !r.isAll) parts.push(compare('>=', field('timestamp'), instant(r.dateFrom)));
    parts.push(compare('<', field('timestamp'), instant(r.dateTo)));
  }
  if (!parts.length) return constant(true);
  return parts.length === 1 ? (parts[0] as Expr) : { node: 'And', exprs: parts };
}

/** Dashboard filters replace the date range and add property filters (PostHog's merge). */
export function applyDashboardFilters(
  filters: HogQLFilters | undefined,
  override: DashboardFilter | null | undefined,
): HogQLFilters | undefined {
  if (!override) return filters;
  const merged: HogQLFilters = { ...filters };
  if (override.date_from !== undefined || override.date_to !== undefined) {
    merged.dateRange = { date_from: override.date_from ?? null, date_to: override.date_to ?? null };
  }
  if (override.properties?.length) {
    const existing = Array.isArray(filters?.properties)
      ? filters.properties
      : filters?.properties
        ? [filters.properties]
        : [];
    merged.properties = [...existing, ...(override.properties as never[])];
  }
  return merged;
}

/** Replaces values of variables the query already declares; others are ignored (as PostHog does). */
export function applyVariablesOverride(
  variables: Record<string, { code_name: string; value?: unknown; isNull?: boolean }> | undefined,
  override: Record<string, unknown> | null | undefined,
): typeof variables {
  if (!override || !variables) return variables;
  const out = { ...variables };
  for (const [id, value] of Object.entries(override)) {
    const existing = out[id];
    if (!existing) continue;
    if (typeof value !== 'object' || value === null)
      throw new ApiError(
        400,
        'validation_error',
        'invalid_input',
        'variables_override values must be objects',
        'variables_override',
      );
    const v = value as { value?: unknown; isNull?: boolean };
    out[id] = { ...existing, variableId: id, value: v.value, isNull: v.isNull } as typeof existing;
  }
  return out;
}
