import { ApiError } from '../../errors.js';
import type { AnyProperties } from '../../hogql/property-filters.js';
import type { TeamRecord } from '../../store/meta/teams.js';
import { resolveActions } from '../actions/resolve.js';
import type { Deps } from '../deps.js';
import type { QueryResult } from './context.js';
import { queryError } from './errors.js';
import { applyDashboardFilters, applyVariablesOverride, type DashboardFilter } from './filters.js';
import { type QueryNode, unwrapQuery } from './kinds.js';
import { type QueryRunner, runnerFor } from './run.js';

/** The parts of a `/query` body that shape what runs (refresh, async and ids are execution's). */
export interface QueryInput {
  query: unknown;
  filters_override?: unknown;
  variables_override?: unknown;
}

/** A checked query node with everything execution needs to cache, schedule and run it. */
export interface PreparedQuery {
  node: QueryNode;
  cacheKeyExtra: Record<string, unknown>;
  staleness: ReturnType<NonNullable<QueryRunner['hints']>> | QueryRunner['staleness'];
  run(options: { signal: AbortSignal; marker: string }): Promise<QueryResult>;
}

/** Applies the request's overrides to the (unwrapped) node, as PostHog does before running it. */
function applyOverrides(input: QueryInput, unwrapped: QueryNode): QueryNode {
  const node = unwrapped;
  const override = input.filters_override as DashboardFilter | null | undefined;
  if (override && (node.kind === 'EventsQuery' || node.kind === 'SessionsQuery')) {
    // Dashboard filters narrow list queries the way PostHog applies them: dates and properties.
    if (override.date_from) node.after = override.date_from;
    if (override.date_to) node.before = override.date_to;
    if (override.properties?.length) {
      node.properties = [...(Array.isArray(node.properties) ? node.properties : []), ...override.properties];
    }
  }
  if (node.kind === 'HogQLQuery') {
    const filters = applyDashboardFilters(
      node.filters as never,
      input.filters_override as DashboardFilter | null,
    );
    if (filters) node.filters = filters;
    const variables = applyVariablesOverride(
      node.variables as never,
      input.variables_override as Record<string, unknown> | null,
    );
    if (variables) node.variables = variables;
  }
  return runnerFor(node.kind).check(node);
}

function usesTestAccountFilters(node: QueryNode): boolean {
  return JSON.stringify(node).includes('"filterTestAccounts":true');
}

/**
 * Checks a `/query` body for a project and binds it to its runner. `kindInPath` is the kind named
 * by `/query/{kind}/`, which must match the body's.
 */
export async function prepareQuery(
  deps: Deps,
  team: TeamRecord,
  input: QueryInput,
  kindInPath?: string,
): Promise<PreparedQuery> {
  if (kindInPath && kindInPath !== (input.query as { kind?: string }).kind) {
    throw new ApiError(
      400,
      'validation_error',
      'invalid_input',
      `Query kind mismatch: path kind "${kindInPath}" does not match body kind "${String((input.query as { kind?: unknown }).kind)}".`,
    );
  }
  // Actions are read before the node is checked, so their definitions are part of the cache key.
  const node = applyOverrides(input, await resolveActions(deps, team.id, unwrapQuery(input.query)));
  const runner = runnerFor(node.kind);
  return {
    node,
    cacheKeyExtra: {
      runner: node.kind,
      week_start_day: team.weekStartDay ?? 0,
      version: 1,
      // The project's test-account filters are part of the answer when the query applies them.
      ...(usesTestAccountFilters(node) ? { test_account_filters: team.testAccountFilters ?? null } : {}),
    },
    staleness: runner.hints?.(node, { timezone: team.timezone, now: deps.now() }) ?? runner.staleness,
    run: async ({ signal, marker }) => {
      try {
        return await runner.run(node, {
          teamId: team.id,
          timezone: team.timezone,
          weekStartDay: team.weekStartDay === 1 ? 1 : 0,
          events: deps.events,
          testAccountFilters: team.testAccountFilters as AnyProperties,
          now: deps.now(),
          async: false,
          marker,
          signal,
        });
      } catch (err) {
        throw queryError(err);
      }
    },
  };
}
