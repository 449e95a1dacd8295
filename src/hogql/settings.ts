import { escapeString } from './printer/escape.js';

/**
 * Settings every HogQL query runs with (PostHog's global settings that apply to this schema,
 * plus caps). Fixed names and numbers only: they are printed into the SQL as they are.
 */
export interface QueryLimits {
  /** Seconds; 60 for synchronous queries, 600 for async ones. */
  maxExecutionTime: number;
  /** Rows a query may return (a backstop behind the LIMIT the compiler enforces). */
  maxResultRows: number;
}

export const SYNC_LIMITS: QueryLimits = {
  maxExecutionTime: 60,
  maxResultRows: 1_000_000,
};

/** Bytes of SQL the engine parses; compile.ts refuses larger queries before they are sent. */
export const MAX_QUERY_SIZE = 1_048_576;

export const ASYNC_LIMITS: QueryLimits = { ...SYNC_LIMITS, maxExecutionTime: 600 };

export function querySettings(limits: QueryLimits): Record<string, number | string> {
  return {
    readonly: 2,
    max_execution_time: limits.maxExecutionTime,
    // No max_memory_usage here: the events store gives every statement its part of the engine's
    // memory limit (ENGINE_MEMORY_LIMIT), which a SETTINGS clause would override.
    max_result_rows: limits.maxResultRows,
    result_overflow_mode: 'throw',
    format_csv_allow_double_quotes: 0,
    max_ast_elements: 4_000_000,
    max_expanded_ast_elements: 4_000_000,
    max_bytes_before_external_group_by: 0,
    transform_null_in: 1,
    optimize_min_equality_disjunction_chain_length: 4_294_967_295,
    allow_experimental_join_condition: 1,
    // events is read with FINAL; a duplicate never spans two monthly partitions.
    do_not_merge_across_partitions_select_final: 1,
    // Moved to PREWHERE, a user condition runs on every team's rows before the team guard, and
    // its errors ("Cannot parse 'SECRET'", division by zero) tell about other teams' data.
    optimize_move_to_prewhere: 0,
    // PostHog's client value; every string is its own parameter, so long IN lists need it.
    max_query_size: MAX_QUERY_SIZE,
  };
}

export function printSettings(settings: Record<string, number | string>): string {
  return Object.entries(settings)
    .map(([k, v]) => {
      if (!/^[a-z_]+$/.test(k)) throw new Error(`invalid setting ${k}`);
      if (typeof v === 'number' ? !Number.isSafeInteger(v) : !/^[a-z_]+$/.test(v))
        throw new Error(`invalid value for ${k}`);
      return `${k}=${typeof v === 'number' ? v : `'${v}'`}`;
    })
    .join(', ');
}

/**
 * The team guard once more, applied by the engine to every read of each table before any
 * condition of the query runs. The printed `WHERE team_id = ...` alone lets JOIN ... ON
 * conditions run on other teams' rows, and their errors ("cannot compile regexp: (SECRET")
 * reach the user.
 */
export function printTeamTableFilters(teamId: number, qualifiedTables: Iterable<string>): string {
  if (!Number.isSafeInteger(teamId)) throw new Error('team id must be an integer');
  const filter = escapeString(`team_id = ${teamId}`);
  const entries = [...new Set(qualifiedTables)].map((t) => `${escapeString(unquoted(t))}: ${filter}`);
  return `additional_table_filters={${entries.join(', ')}}`;
}

/** The engine matches filters by `db.table` as plain text: `` `d`.`t` `` → `d.t`. */
function unquoted(qualified: string): string {
  const parts = qualified.matchAll(/`((?:[^`\\]|\\.)*)`|([^.`]+)/g);
  return [...parts].map((m) => (m[1] === undefined ? m[2] : m[1].replace(/\\(.)/g, '$1'))).join('.');
}
