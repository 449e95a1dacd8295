import { validationError } from '../errors.js';

/**
 * Everything about `hogql_query` that needs the HogQL compiler lives here, so that wiring the
 * compiler in touches this file only. Until then a query is stored as given, validated only as a
 * non-empty SELECT, has no derived `schema`, and an export that has one cannot run.
 *
 * LEFT FOR THE LEAD: with `compileHogQL(text, { teamId, timezone })` → `{ sql, params, columns }`,
 * - `validateHogQLQuery`: PostHog's rules (UNION, FROM events only, no JOIN/subquery/CTE, parse
 *   and resolution errors as "Failed to parse query" / "Invalid HogQL query: …"), returning the
 *   normalised text and `schema` = {fields: [{expression, alias}], values, hogql_query};
 * - `compileExportQuery`: the SELECT for one window, team-filtered, ordered by
 *   (inserted_at, uuid) with the page cursor, and its row columns.
 */
export interface HogQLExport {
  hogqlQuery: string;
  schema: Record<string, unknown> | null;
}

export function validateHogQLQuery(text: unknown): HogQLExport | null {
  if (text === null || text === undefined) return null;
  if (typeof text !== 'string') throw validationError('Not a valid string.', 'hogql_query', 'invalid');
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (!/^select\b/i.test(trimmed)) throw validationError('Failed to parse query', 'hogql_query');
  return { hogqlQuery: trimmed, schema: null };
}

/** Raised when a run needs the compiler; the run fails with this message and is not retried. */
export class HogQLUnavailableError extends Error {
  constructor() {
    super('Exports with a hogql_query cannot run yet: the HogQL compiler is not available in this build');
  }
}

export function compileExportQuery(_text: string, _ctx: { teamId: number; timezone: string }): never {
  throw new HogQLUnavailableError();
}
