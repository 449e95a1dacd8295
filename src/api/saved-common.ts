import type { DashboardFilter } from '../domain/query/filters.js';
import { checkDashboardFilter } from '../domain/query/prepare.js';
import { isId } from '../domain/saved/fields.js';
import { notFound, validationError } from '../errors.js';
import { EXECUTION_MODES, type ExecutionMode, executionModeFromRefresh } from '../execution/refresh.js';

/** Helpers shared by the insight, dashboard, annotation and sharing routes. */

/** Ids are positive integers; anything else names nothing (404, as a malformed id elsewhere). */
export const idOf = (raw: string) => {
  if (!isId(raw)) throw notFound();
  return Number(raw);
};

/** A JSON object carried in a query string parameter (PostHog's `filters_override=`). */
export function jsonParam(raw: string | undefined, attr: string): unknown {
  if (raw === undefined || raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    throw validationError('Value must be valid JSON.', attr, 'invalid');
  }
}

export function filtersParam(raw: string | undefined): DashboardFilter | null | undefined {
  const v = jsonParam(raw, 'filters_override');
  return v === undefined ? undefined : checkDashboardFilter(v);
}

export function variablesParam(raw: string | undefined): Record<string, unknown> | null | undefined {
  const v = jsonParam(raw, 'variables_override');
  if (v === undefined || v === null) return v as undefined | null;
  if (typeof v !== 'object' || Array.isArray(v))
    throw validationError('Must be an object.', 'variables_override');
  return v as Record<string, unknown>;
}

/**
 * `?refresh=` of an insight or dashboard, as PostHog reads it from a query string: `true`/`1` mean
 * `true`, `false`/`0`/absent mean `false`, a mode name is itself. Then PostHog's general mapping:
 * `true` → force_blocking, `false` → force_cache (cached results only, never calculated).
 */
export function refreshModeOf(raw: string | undefined): ExecutionMode {
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return 'force_cache';
  if (raw === 'true' || raw === '1') return executionModeFromRefresh(true);
  if ((EXECUTION_MODES as readonly string[]).includes(raw)) return raw as ExecutionMode;
  throw validationError(
    `"${raw.slice(0, 100)}" is not a valid choice. Choose one of: ${EXECUTION_MODES.join(', ')}, true, false.`,
    'refresh',
    'invalid_choice',
  );
}
