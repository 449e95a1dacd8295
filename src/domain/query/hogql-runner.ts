import { ApiError } from '../../errors.js';
import { type CompileOptions, compileSelect } from '../../hogql/compile.js';
import { DEFAULT_RETURNED_ROWS } from '../../hogql/limits.js';
import {
  DEFAULT_PERSONS_ON_EVENTS_MODE,
  isPersonsOnEventsMode,
  PERSONS_ON_EVENTS_MODES,
  type PersonsOnEventsMode,
} from '../../hogql/schema/events.js';
import { ASYNC_LIMITS, SYNC_LIMITS } from '../../hogql/settings.js';
import type { QueryResult, RunnerContext } from './context.js';
import { filtersExpr, type HogQLFilters } from './filters.js';
import { queryResponse } from './response.js';
import { isoDateTimeColumns } from './values.js';

export interface HogQLQueryNode {
  kind: 'HogQLQuery';
  query: string;
  values?: Record<string, unknown>;
  variables?: Record<string, { variableId?: string; code_name: string; value?: unknown; isNull?: boolean }>;
  filters?: HogQLFilters;
  modifiers?: Record<string, unknown>;
  name?: string;
}

/**
 * The query's `personsOnEventsMode`, else the default. An unknown value is refused as PostHog's
 * schema refuses it.
 */
export function personsOnEventsModeOf(given: Record<string, unknown> | undefined): PersonsOnEventsMode {
  const mode = given?.personsOnEventsMode;
  if (mode === undefined || mode === null) return DEFAULT_PERSONS_ON_EVENTS_MODE;
  if (isPersonsOnEventsMode(mode)) return mode;
  const allowed = PERSONS_ON_EVENTS_MODES.map((m) => `'${m}'`);
  throw new ApiError(
    400,
    'validation_error',
    'invalid_input',
    `1 validation error for QueryRequest\nquery.modifiers.personsOnEventsMode: Input should be ${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`,
    'modifiers__personsOnEventsMode',
  );
}

/**
 * A query's modifiers with the project's (`team.modifiers`) filling the keys it does not set, as
 * PostHog does.
 */
export function withTeamModifiers(
  given: Record<string, unknown> | undefined,
  team: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (!team) return given;
  const out: Record<string, unknown> = { ...team };
  for (const [k, v] of Object.entries(given ?? {})) if (v !== undefined && v !== null) out[k] = v;
  return out;
}

/** Modifiers Burrow applies (and reports back as `modifiers`). */
export function effectiveModifiers(given: Record<string, unknown> | undefined) {
  return {
    personsOnEventsMode: personsOnEventsModeOf(given),
    materializationMode: 'legacy_null_as_null',
    sessionTableVersion: 'v2',
    convertToProjectTimezone: given?.convertToProjectTimezone !== false,
    bounceRatePageViewMode: 'count_pageviews',
  };
}

export function checkHogQLNode(node: Record<string, unknown>): HogQLQueryNode {
  if (typeof node.query !== 'string' || !node.query.trim()) {
    throw new ApiError(
      400,
      'validation_error',
      'parse_error',
      '1 validation error for QueryRequest\nquery.HogQLQuery.query: Field required',
      'query',
    );
  }
  for (const key of ['values', 'variables', 'filters', 'modifiers'] as const) {
    const v = node[key];
    if (v !== undefined && v !== null && (typeof v !== 'object' || Array.isArray(v))) {
      throw new ApiError(
        400,
        'validation_error',
        'parse_error',
        `1 validation error for QueryRequest\nquery.HogQLQuery.${key}: Input should be an object`,
        key,
      );
    }
  }
  return node as unknown as HogQLQueryNode;
}

/**
 * How a HogQLQuery node compiles for its project: placeholders, `{filters}` (with the project's
 * test-account filters when asked), time zone, limits. Shared with HogQLMetadata, which checks a
 * query exactly as running it would compile it.
 */
export function hogqlCompileOptions(
  node: Pick<HogQLQueryNode, 'values' | 'variables' | 'filters' | 'modifiers'>,
  ctx: RunnerContext,
): CompileOptions & { timezone: string } {
  const modifiers = effectiveModifiers(withTeamModifiers(node.modifiers, ctx.teamModifiers));
  return {
    teamId: ctx.teamId,
    eventsSince: ctx.eventsSince,
    timezone: modifiers.convertToProjectTimezone ? ctx.timezone : 'UTC',
    weekStartDay: ctx.weekStartDay,
    table: (t) => ctx.events.table(t),
    values: node.values,
    variables: node.variables,
    exprs: { filters: filtersExpr(node.filters, ctx.timezone, ctx.now, ctx.testAccountFilters) },
    defaultLimit: DEFAULT_RETURNED_ROWS + 1,
    limits: ctx.async ? ASYNC_LIMITS : SYNC_LIMITS,
    propertyType: ctx.propertyType,
    personColumns: ctx.events.personColumns,
    cohorts: ctx.cohorts,
    personsOnEventsMode: modifiers.personsOnEventsMode,
  };
}

/**
 * HogQLQuery: compile for the project and run. Without a LIMIT of its own the query is paginated:
 * 101 rows are fetched for 100 returned, and `hasMore` says whether there were more.
 */
export async function runHogQLQuery(node: HogQLQueryNode, ctx: RunnerContext): Promise<QueryResult> {
  const options = hogqlCompileOptions(node, ctx);
  const timezone = options.timezone;
  const compiled = compileSelect(node.query, options);
  const started = performance.now();
  const out = await ctx.events.queryRows(compiled.sql, {
    params: compiled.params,
    marker: ctx.marker,
    signal: ctx.signal,
    teamId: ctx.teamId,
  });
  const elapsed = (performance.now() - started) / 1000;
  const paginated = !compiled.hadLimit;
  const results = paginated ? out.rows.slice(0, DEFAULT_RETURNED_ROWS) : out.rows;
  // DateTimes as PostHog's JSON shows them: ISO 8601 with the zone's offset.
  isoDateTimeColumns(
    results,
    out.columns.map((c) => c.type),
    timezone,
  );
  return queryResponse(
    {
      results,
      columns: compiled.columns,
      types: out.columns.map((c, i) => [compiled.columns[i] ?? c.name, c.type]),
      hogql: paginated
        ? compiled.hogql.replace(/LIMIT 101$/, `LIMIT ${DEFAULT_RETURNED_ROWS}`)
        : compiled.hogql,
      clickhouse: compiled.sql,
      query: node.query,
    },
    { seconds: elapsed, modifiers: withTeamModifiers(node.modifiers, ctx.teamModifiers) },
    paginated
      ? { hasMore: out.rows.length > DEFAULT_RETURNED_ROWS, limit: DEFAULT_RETURNED_ROWS, offset: 0 }
      : {},
  );
}
