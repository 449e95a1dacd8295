import { type AnySelect, cloneAst } from './ast.js';
import { type CohortLookup, replaceCohorts } from './cohorts.js';
import { HogQLQueryError } from './errors.js';
import { applyLimits, DEFAULT_RETURNED_ROWS } from './limits.js';
import { parseSelect } from './parse.js';
import { type PlaceholderValues, replacePlaceholders } from './placeholders.js';
import { ClickHousePrinter } from './printer/clickhouse.js';
import { PrintContext, type PrintOptions } from './printer/context.js';
import { printHogQL, printSelectHogQL } from './printer/hogql.js';
import { resolveAny } from './resolver/select.js';
import type { PersonsOnEventsMode } from './schema/events.js';
import {
  MAX_QUERY_SIZE,
  printSettings,
  printTeamTableFilters,
  type QueryLimits,
  querySettings,
  SYNC_LIMITS,
} from './settings.js';

export interface CompileOptions extends PrintOptions, PlaceholderValues {
  /** LIMIT for a top-level SELECT without one; null: the maximum. Default 100. */
  defaultLimit?: number | null;
  limits?: QueryLimits;
  /** Cohorts of the project for `IN COHORT` (none: every cohort reference is an error). */
  cohorts?: CohortLookup | undefined;
  /** PostHog's `personsOnEventsMode` modifier (default: its self-hosted default). */
  personsOnEventsMode?: PersonsOnEventsMode | undefined;
}

export interface CompiledQuery {
  /** ClickHouse SQL, strings as `{hogql_val_N:String}` parameters, settings included. */
  sql: string;
  params: Record<string, string>;
  /** The query as HogQL after placeholders and limits. */
  hogql: string;
  /** Output column names: alias, else the expression printed as HogQL. */
  columns: string[];
  /** The top-level SELECT had a LIMIT of its own. */
  hadLimit: boolean;
}

/** HogQL text or AST → team-guarded ClickHouse SQL. The AST given is not modified. */
export function compileSelect(input: string | AnySelect, options: CompileOptions): CompiledQuery {
  try {
    return compile(input, options);
  } catch (err) {
    // Every stage recurses over the AST; placeholder values and filter groups can nest without
    // bound (the parser's own limit does not see them).
    if (err instanceof RangeError && /call stack/i.test(err.message)) {
      throw new HogQLQueryError('Query is nested too deeply');
    }
    throw err;
  }
}

function compile(input: string | AnySelect, options: CompileOptions): CompiledQuery {
  let ast = typeof input === 'string' ? parseSelect(input) : cloneAst(input);
  if (ast.node !== 'SelectQuery' && ast.node !== 'SelectSetQuery')
    throw new HogQLQueryError('Expected a SELECT query');
  ast = replacePlaceholders(ast, options);
  ast = replaceCohorts(ast, options.cohorts);
  const hadLimit = applyLimits(
    ast,
    options.defaultLimit === undefined ? DEFAULT_RETURNED_ROWS : options.defaultLimit,
  );
  const hogql = printSelectHogQL(ast);
  resolveAny(ast, new Map(), 0, { personsOnEventsMode: options.personsOnEventsMode });
  const ctx = new PrintContext(options);
  const body = new ClickHousePrinter(ctx).print(ast);
  const settings = printSettings(querySettings(options.limits ?? SYNC_LIMITS));
  const filters = ctx.tables.size ? `, ${printTeamTableFilters(options.teamId, ctx.tables)}` : '';
  const sql = `${body} SETTINGS ${settings}${filters}`;
  checkQuerySize(sql);
  return { sql, params: ctx.params, hogql, columns: columnNames(ast), hadLimit };
}

/**
 * The engine parses at most `max_query_size` bytes of SQL (PostHog's client value, 1 MiB); every
 * string of the query is a parameter placeholder in that text, so a list of 100 000 strings
 * compiles to more. Refused here, naming the problem, rather than as the engine's syntax error.
 */
function checkQuerySize(sql: string): void {
  const bytes = Buffer.byteLength(sql);
  if (bytes > MAX_QUERY_SIZE) {
    throw new HogQLQueryError(
      `Query is too large: it compiles to ${bytes} bytes of SQL, more than the limit of ${MAX_QUERY_SIZE}. Use fewer values (for example a shorter IN list, or a subquery).`,
    );
  }
}

function columnNames(q: AnySelect): string[] {
  const first = q.node === 'SelectSetQuery' ? leftmost(q) : q;
  return first.select.map((e) => {
    if (e.node === 'Alias') return e.alias;
    if (e.node === 'Field' && e.from_asterisk) return String(e.chain[e.chain.length - 1]);
    return printHogQL(e);
  });
}

function leftmost(q: AnySelect): Extract<AnySelect, { node: 'SelectQuery' }> {
  return q.node === 'SelectSetQuery' ? leftmost(q.initial_select_query) : q;
}
