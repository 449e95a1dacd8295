import type { AnySelect } from '../../hogql/ast.js';
import { type CompiledQuery, compileSelect } from '../../hogql/compile.js';
import type { PlaceholderValues } from '../../hogql/placeholders.js';
import { ASYNC_LIMITS, SYNC_LIMITS } from '../../hogql/settings.js';
import type { RunnerContext } from './context.js';
import { effectiveModifiers, withTeamModifiers } from './hogql-runner.js';

export interface SelectRun {
  rows: unknown[][];
  /** Engine types, one per column. */
  types: string[];
  hogql: string;
  clickhouse: string;
  /** The zone DateTime values were computed in. */
  timezone: string;
  seconds: number;
}

export type SelectOptions = { modifiers?: Record<string, unknown> | undefined } & PlaceholderValues;

export interface Compiled extends CompiledQuery {
  timezone: string;
}

/** Compiles a runner-built AST for the project (throws the compiler's errors; runs nothing). */
export function compileFor(ast: AnySelect, ctx: RunnerContext, options: SelectOptions = {}): Compiled {
  const modifiers = effectiveModifiers(withTeamModifiers(options.modifiers, ctx.teamModifiers));
  const timezone = modifiers.convertToProjectTimezone ? ctx.timezone : 'UTC';
  const compiled = compileSelect(ast, {
    teamId: ctx.teamId,
    eventsSince: ctx.eventsSince,
    timezone,
    weekStartDay: ctx.weekStartDay,
    table: (t) => ctx.events.table(t),
    values: options.values,
    variables: options.variables,
    exprs: options.exprs,
    defaultLimit: null,
    limits: ctx.async ? ASYNC_LIMITS : SYNC_LIMITS,
    propertyType: ctx.propertyType,
    personColumns: ctx.events.personColumns,
    cohorts: ctx.cohorts,
    personsOnEventsMode: modifiers.personsOnEventsMode,
  });
  return { ...compiled, timezone };
}

export async function runCompiled(compiled: Compiled, ctx: RunnerContext): Promise<SelectRun> {
  const started = performance.now();
  const out = await ctx.events.queryRows(compiled.sql, {
    params: compiled.params,
    marker: ctx.marker,
    signal: ctx.signal,
    teamId: ctx.teamId,
  });
  return {
    rows: out.rows,
    types: out.columns.map((c) => c.type),
    hogql: compiled.hogql,
    clickhouse: compiled.sql,
    timezone: compiled.timezone,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * Compiles and runs: the one path every structured kind takes, so they share the compiler's team
 * guard, parameters and limits with HogQLQuery.
 */
export async function runSelect(
  ast: AnySelect,
  ctx: RunnerContext,
  options: SelectOptions = {},
): Promise<SelectRun> {
  return runCompiled(compileFor(ast, ctx, options), ctx);
}
