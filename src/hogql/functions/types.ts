import type { Expr } from '../ast.js';

/**
 * Coarse type of an argument, as far as the resolver knows it. Remaps that print differently per
 * input type (`toDateTime`, `toDate`) read it; anything not known is 'unknown'.
 */
export type ArgKind =
  | 'string'
  | 'integer'
  | 'float'
  | 'decimal'
  | 'boolean'
  | 'date'
  | 'datetime'
  | 'uuid'
  | 'array'
  | 'tuple'
  | 'interval'
  | 'null'
  | 'unknown';

/** What a function's printer gets: the call's arguments already printed, and their AST. */
export interface CallContext {
  /** Printed ClickHouse SQL of each argument, in order. */
  args: string[];
  /** The arguments' HogQL AST (after resolution), for decisions on constants and types. */
  nodes: Expr[];
  /** Printed parametric arguments (`quantile(0.5)(x)` → ['0.5']). */
  params: string[];
  /** The project's timezone (IANA name). */
  timezone: string;
  /** 0 = weeks start on Sunday, 1 = on Monday. */
  weekStartDay: 0 | 1;
  /** Binds a string as a query parameter and returns the placeholder to print. */
  bindString(value: string): string;
  /** Resolved kind of each argument; missing entries fall back to what the AST node shows. */
  argTypes?: readonly ArgKind[];
  /** `count(DISTINCT x)`: printed by `printCall` for defs without `print`. */
  distinct?: boolean;
}

export interface FunctionDef {
  /** Name printed for ClickHouse when no `print` is given (with `print`: the main function it emits). */
  clickhouse: string;
  /** The HogQL spelling this def is registered under (set by the registry). */
  name?: string;
  minArgs: number;
  /** Undefined: no upper bound. */
  maxArgs?: number;
  /** Parametric functions (`quantile(0.5)(x)`); undefined max: unbounded. Default: no parameters. */
  minParams?: number;
  maxParams?: number;
  /** An aggregate (may not nest inside another aggregate in the same SELECT). */
  aggregate?: boolean;
  /** Lowercase spelling also accepted (`COUNT`, `Sum`, `IFNULL`). */
  caseInsensitive?: boolean;
  /**
   * The team timezone is appended as a last argument when fewer than `maxArgs` are given. Only
   * for defs without `print`: a `print` produces the whole call, timezone included.
   */
  tzAware?: boolean;
  /** Custom printing for HogQL-only functions and remaps (`toInt` → `accurateCastOrNull`). */
  print?: (call: CallContext) => string;
  /** Window function (`row_number`, `lagInFrame`, ...): only valid with OVER. */
  window?: boolean;
  /**
   * `lag`/`lead`: when the OVER clause names no frame, print it with
   * `ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING` (PostHog's default for them).
   */
  unboundedFrame?: boolean;
}
