import { validationError } from '../../errors.js';
import type { Expr } from '../../hogql/ast.js';
import { HogQLQueryError } from '../../hogql/errors.js';
import { parseSelect } from '../../hogql/parse.js';
import type { AnyProperties, FilterScope } from '../../hogql/property-filters.js';
import { propertiesToExpr } from '../../hogql/property-filters.js';
import type { TeamRecord } from '../../store/meta/teams.js';
import { eventsSinceFor } from '../data-lifecycle/retention.js';
import { typedContext } from '../definitions/typed-context.js';
import type { Deps } from '../deps.js';
import type { RunnerContext } from '../query/context.js';
import { queryError } from '../query/errors.js';
import { runSelect } from '../query/run-select.js';

/**
 * Runs a HogQL SELECT Burrow wrote for a REST resource (persons, events, groups, cohorts): the
 * same compiler as /query, so the team guard and string binding hold, with user input only ever
 * in `values` (constants) and `exprs` (AST built from filters). Returns rows as arrays.
 */
export async function runResourceQuery(
  deps: Deps,
  team: TeamRecord,
  text: string,
  placeholders: { values?: Record<string, unknown>; exprs?: Record<string, Expr> } = {},
): Promise<unknown[][]> {
  const ctx: RunnerContext = {
    teamId: team.id,
    eventsSince: eventsSinceFor(team.settings, deps.now()),
    timezone: 'UTC',
    weekStartDay: team.weekStartDay === 1 ? 1 : 0,
    events: deps.events,
    now: deps.now(),
    async: false,
    ...(await typedContext(deps, team.id)),
  };
  try {
    const run = await runSelect(parseSelect(text), ctx, {
      values: placeholders.values,
      exprs: placeholders.exprs,
      modifiers: { convertToProjectTimezone: false },
    });
    return run.rows;
  } catch (err) {
    throw queryError(err);
  }
}

/** `properties` from a query string: PostHog's JSON list (or group) of property filters. */
export function parsePropertiesParam(raw: string | undefined, scope: FilterScope): Expr | undefined {
  if (raw === undefined || raw === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw validationError('Properties are not valid JSON.', 'properties');
  }
  if (parsed === null) return undefined;
  if (typeof parsed !== 'object')
    throw validationError('Properties must be a list of filters.', 'properties');
  if (JSON.stringify(parsed).length > 100_000)
    throw validationError('Properties are too large.', 'properties');
  try {
    return propertiesToExpr(parsed as AnyProperties, scope);
  } catch (err) {
    if (err instanceof HogQLQueryError) throw validationError(err.message, 'properties');
    if (err instanceof RangeError) throw validationError('Properties are nested too deeply.', 'properties');
    throw validationError('Invalid property filter.', 'properties');
  }
}
