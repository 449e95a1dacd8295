import { ApiError, validationError } from '../../errors.js';
import type { AnyProperties } from '../../hogql/property-filters.js';
import { lastDeletionFinished } from '../../store/meta/async-deletions.js';
import type { TeamRecord } from '../../store/meta/teams.js';
import { resolveActions } from '../actions/resolve.js';
import { eventsSinceFor } from '../data-lifecycle/retention.js';
import { typedContext } from '../definitions/typed-context.js';
import type { Deps } from '../deps.js';
import type { QueryResult } from './context.js';
import { queryError } from './errors.js';
import { applyDashboardFilters, applyVariablesOverride, type DashboardFilter } from './filters.js';
import { personsOnEventsModeOf, withTeamModifiers } from './hogql-runner.js';
import { nodePath, type QueryNode, unwrapQuery } from './kinds.js';
import { type QueryRunner, runnableKinds, runnerFor } from './run.js';

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
  /** Answer `run`'s result as it is: no cache, no queue (HogQLMetadata). */
  direct: boolean;
  run(options: { signal: AbortSignal; marker: string; async: boolean }): Promise<QueryResult>;
}

/** Insight kinds whose `dateRange` and `properties` a dashboard's filters replace and extend. */
const INSIGHT_KINDS = new Set([
  'TrendsQuery',
  'FunnelsQuery',
  'RetentionQuery',
  'PathsQuery',
  'StickinessQuery',
  'LifecycleQuery',
]);

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/** A dashboard filter as given: an object of known fields with the right types, else a 400. */
export function checkDashboardFilter(raw: unknown, attr = 'filters_override'): DashboardFilter | null {
  if (raw === null || raw === undefined) return null;
  if (!isObject(raw)) throw validationError('Must be an object.', attr);
  for (const key of ['date_from', 'date_to'] as const) {
    const v = raw[key];
    if (v !== undefined && v !== null && (typeof v !== 'string' || v.length > 100))
      throw validationError('Must be a date string (at most 100 characters).', `${attr}__${key}`);
  }
  const props = raw.properties;
  if (props !== undefined && props !== null) {
    if (!Array.isArray(props)) throw validationError('Must be a list.', `${attr}__properties`);
    if (props.length > 100) throw validationError('At most 100 property filters.', `${attr}__properties`);
    if (!props.every(isObject))
      throw validationError('Every property filter must be an object.', `${attr}__properties`);
  }
  if (raw.explicitDate !== undefined && raw.explicitDate !== null && typeof raw.explicitDate !== 'boolean')
    throw validationError('Must be a valid boolean.', `${attr}__explicitDate`);
  return raw as DashboardFilter;
}

/**
 * PostHog's merge of dashboard filters into an insight query: a date in the filter replaces the
 * query's range, property filters are ANDed with the query's own (list or group).
 */
function applyToInsight(node: QueryNode, override: DashboardFilter & { explicitDate?: boolean | null }) {
  if (override.date_from || override.date_to) {
    node.dateRange = {
      ...(isObject(node.dateRange) ? node.dateRange : {}),
      date_from: override.date_from ?? null,
      date_to: override.date_to ?? null,
      ...(override.explicitDate !== undefined ? { explicitDate: override.explicitDate } : {}),
    };
  }
  if (override.properties?.length) {
    const own = node.properties;
    if (Array.isArray(own) || own === undefined || own === null) {
      node.properties = [...(Array.isArray(own) ? own : []), ...override.properties];
    } else {
      node.properties = { type: 'AND', values: [own, { type: 'AND', values: override.properties }] };
    }
  }
}

/** Applies the request's overrides to the (unwrapped) node, as PostHog does before running it. */
export function prepareNode(
  node: QueryNode,
  filtersOverride: DashboardFilter | null | undefined,
  variablesOverride: Record<string, unknown> | null | undefined,
): QueryNode {
  const override = filtersOverride;
  if (override && (node.kind === 'EventsQuery' || node.kind === 'SessionsQuery')) {
    // Dashboard filters narrow list queries the way PostHog applies them: dates and properties.
    if (override.date_from) node.after = override.date_from;
    if (override.date_to) node.before = override.date_to;
    if (override.properties?.length) {
      node.properties = [...(Array.isArray(node.properties) ? node.properties : []), ...override.properties];
    }
  }
  if (override && INSIGHT_KINDS.has(node.kind)) applyToInsight(node, override);
  if (node.kind === 'HogQLQuery') {
    const filters = applyDashboardFilters(node.filters as never, override);
    if (filters) node.filters = filters;
    const variables = applyVariablesOverride(node.variables as never, variablesOverride);
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
  // Errors name where in the body they are (`query__select__1`, through wrappers `query__source__…`).
  const path = nodePath(input.query);
  // Actions are read before the node is checked, so their definitions are part of the cache key.
  let node: QueryNode;
  try {
    node = prepareNode(
      await resolveActions(deps, team.id, unwrapQuery(input.query, runnableKinds())),
      input.filters_override as DashboardFilter | null | undefined,
      input.variables_override as Record<string, unknown> | null | undefined,
    );
  } catch (err) {
    throw queryError(err, path);
  }
  const runner = runnerFor(node.kind);
  // A finished deletion of persons' data changes past answers, which no watermark covers.
  const deletedAt = await lastDeletionFinished(deps.meta, team.id);
  return {
    node,
    cacheKeyExtra: {
      runner: node.kind,
      week_start_day: team.weekStartDay ?? 0,
      version: 1,
      // The project's test-account filters are part of the answer when the query applies them.
      ...(usesTestAccountFilters(node) ? { test_account_filters: team.testAccountFilters ?? null } : {}),
      // The project's default modifiers (persons-on-events mode) change the answer.
      ...(team.modifiers ? { team_modifiers: team.modifiers } : {}),
      // A retention cut removes rows from the answer: a result computed before it is another one.
      ...(eventsSinceFor(team.settings, deps.now())
        ? { events_since: eventsSinceFor(team.settings, deps.now()) }
        : {}),
      ...(deletedAt ? { data_deleted_at: deletedAt } : {}),
      // Web analytics' `doPathCleaning` applies the project's rules: other rules, another answer.
      ...(usesPathCleaning(node)
        ? { path_cleaning_filters: team.settings?.path_cleaning_filters ?? null }
        : {}),
      // What the runner's answer reads from the metadata store (error tracking's issues).
      ...(runner.metaState ? { meta_state: await runner.metaState(deps, team.id) } : {}),
    },
    staleness: runner.hints?.(node, { timezone: team.timezone, now: deps.now() }) ?? runner.staleness,
    direct: runner.direct === true,
    run: async ({ signal, marker, async }) => {
      try {
        // Property types from definitions, so typed properties compile as PostHog's do.
        const typed = await typedContext(deps, team.id);
        const out = await runner.run(node, {
          ...typed,
          teamId: team.id,
          eventsSince: eventsSinceFor(team.settings, deps.now()),
          timezone: team.timezone,
          weekStartDay: team.weekStartDay === 1 ? 1 : 0,
          events: deps.events,
          testAccountFilters: team.testAccountFilters as AnyProperties,
          now: deps.now(),
          // Background calculations get PostHog's async limit (600 s), blocking ones 60 s.
          async,
          marker,
          signal,
          teamModifiers: team.modifiers ?? undefined,
          meta: deps.meta,
          pathCleaningFilters: team.settings?.path_cleaning_filters,
        });
        return reportTeamModifiers(out, node, team.modifiers);
      } catch (err) {
        throw queryError(err, path);
      }
    },
  };
}

/**
 * Runners echo the modifiers their query set; the project's default persons-on-events mode
 * applied too where the query set none.
 */
function reportTeamModifiers(
  out: QueryResult,
  node: QueryNode,
  team: Record<string, unknown> | null,
): QueryResult {
  if (!team || !out.modifiers || typeof out.modifiers !== 'object') return out;
  const given = (node as { modifiers?: Record<string, unknown> }).modifiers;
  const personsOnEventsMode = personsOnEventsModeOf(withTeamModifiers(given, team));
  return { ...out, modifiers: { ...(out.modifiers as Record<string, unknown>), personsOnEventsMode } };
}

/** Whether the node (a web analytics kind) asks for the project's path cleaning rules. */
function usesPathCleaning(node: QueryNode): boolean {
  return (node as { doPathCleaning?: unknown }).doPathCleaning === true;
}
