import { validationError } from '../errors.js';

/** How a query may use the cache and whether it runs in the request or in the background. */
export const EXECUTION_MODES = [
  'force_blocking',
  'force_async',
  'blocking',
  'async',
  'async_except_on_cache_miss',
  'lazy_async',
  'force_cache',
] as const;
export type ExecutionMode = (typeof EXECUTION_MODES)[number];

const isMode = (value: unknown): value is ExecutionMode =>
  typeof value === 'string' && (EXECUTION_MODES as readonly string[]).includes(value);

/**
 * PostHog's general mapping: a mode name is itself, `true` is `force_blocking`, anything else
 * (missing, `false`, unknown) is `force_cache`.
 */
export function executionModeFromRefresh(refresh: unknown): ExecutionMode {
  if (refresh === true) return 'force_blocking';
  return isMode(refresh) ? refresh : 'force_cache';
}

/**
 * The mode of a `/query` request. `refresh` must be a mode name, a boolean or absent (else 400);
 * the deprecated `async: true` means `async`. A missing refresh (and `false`, "no forced refresh")
 * is `blocking`, the spec's default; `force_cache` stays itself: cached data or a cache miss,
 * answered at once, never a calculation (the spec's refresh table wins over PostHog's endpoint,
 * which turns it into blocking).
 */
export function queryEndpointMode(refresh: unknown, legacyAsync?: unknown): ExecutionMode {
  if (refresh !== undefined && refresh !== null && typeof refresh !== 'boolean' && !isMode(refresh)) {
    throw validationError(
      `"${String(refresh)}" is not a valid choice. Choose one of: ${EXECUTION_MODES.join(', ')}, true, false.`,
      'refresh',
      'invalid_choice',
    );
  }
  if (legacyAsync !== undefined && legacyAsync !== null && typeof legacyAsync !== 'boolean') {
    throw validationError('Must be a valid boolean.', 'async', 'invalid');
  }
  if (legacyAsync === true) return 'async';
  if (refresh === undefined || refresh === null || refresh === false) return 'blocking';
  return executionModeFromRefresh(refresh);
}
