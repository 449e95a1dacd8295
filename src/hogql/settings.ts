/**
 * Settings every HogQL query runs with (PostHog's global settings that apply to this schema,
 * plus caps). Fixed names and numbers only: they are printed into the SQL as they are.
 */
export interface QueryLimits {
  /** Seconds; 60 for synchronous queries, 600 for async ones. */
  maxExecutionTime: number;
  /** Bytes of memory one query may use. */
  maxMemoryUsage: number;
  /** Rows a query may return (a backstop behind the LIMIT the compiler enforces). */
  maxResultRows: number;
}

export const SYNC_LIMITS: QueryLimits = {
  maxExecutionTime: 60,
  maxMemoryUsage: 4 * 1024 ** 3,
  maxResultRows: 1_000_000,
};

export const ASYNC_LIMITS: QueryLimits = { ...SYNC_LIMITS, maxExecutionTime: 600 };

export function querySettings(limits: QueryLimits): Record<string, number | string> {
  return {
    readonly: 2,
    max_execution_time: limits.maxExecutionTime,
    max_memory_usage: limits.maxMemoryUsage,
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
