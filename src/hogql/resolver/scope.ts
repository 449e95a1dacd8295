import type { Alias, CTE, JoinExpr } from '../ast.js';
import { HogQLQueryError } from '../errors.js';
import type { TableDef } from '../schema/fields.js';
import type { DataType, ValueInfo } from '../types.js';

/** A lazy join waiting to be added to its SELECT once every clause is resolved. */
export interface PendingJoin {
  from: TableSource;
  fromField: string;
  target: TableSource;
  toField: string;
  joinType: 'LEFT JOIN' | 'INNER JOIN';
  where?: { field: string; value: number } | undefined;
}

/** A table, lazy table, table function or subquery in a SELECT's FROM/JOIN clauses. */
export interface TableSource {
  /** How queries and the printed SQL name it ('' for an unaliased subquery). */
  alias: string;
  def?: TableDef | undefined;
  /** Output columns of a subquery or CTE. */
  columns?: Map<string, ValueInfo & { data: DataType }> | undefined;
  /** Lazy tables: the fields the query reads, so the generated SELECT computes only those. */
  requested: Set<string>;
  join: JoinExpr;
  /** Named in the query's FROM (not added by a lazy join): bare field names search these. */
  fromClause?: boolean;
}

export interface Scope {
  sources: Map<string, TableSource>;
  order: TableSource[];
  /** Aliases defined in this SELECT's list (and ARRAY JOIN), by name. */
  aliases: Map<string, Alias>;
  /** Aliases whose expression is being resolved: a reference to them means the column instead. */
  resolving: Set<string>;
  /** Visible CTEs, innermost first. */
  ctes: Map<string, CTE>;
  lambdaArgs: string[][];
  pending: PendingJoin[];
  depth: number;
}

export function newScope(ctes: Map<string, CTE>, depth: number): Scope {
  return {
    sources: new Map(),
    order: [],
    aliases: new Map(),
    resolving: new Set(),
    ctes,
    lambdaArgs: [],
    pending: [],
    depth,
  };
}

/**
 * CTEs are copied into every place that names them, so CTEs naming earlier ones twice grow the
 * query exponentially (a 25-line query would take the process down). Copies per query are capped.
 */
export const MAX_CTE_COPIES = 500;
let cteCopies = 0;

/** CTEs whose body is being resolved: naming one of them again is a cycle, not more nesting. */
const expanding = new Set<CTE>();

/** Starts the count for one top-level query (resolution is synchronous). */
export function resetCteCopies(): void {
  cteCopies = 0;
  expanding.clear();
}

/**
 * Resolves a CTE's copy with the CTE marked as in progress. A CTE that names itself (`WITH
 * RECURSIVE`, or a plain CTE named like the table it reads) would otherwise be copied into itself
 * until the depth limit, and be refused as "nested too deeply", which names nothing.
 */
export function expandCte<T>(name: string, cte: CTE, resolve: () => T): T {
  if (expanding.has(cte)) {
    throw new HogQLQueryError(
      cte.recursive
        ? `Recursive CTEs are not supported: ${name} refers to itself`
        : `CTE ${name} refers to itself (recursive CTEs are not supported)`,
    );
  }
  expanding.add(cte);
  try {
    return resolve();
  } finally {
    expanding.delete(cte);
  }
}

export function countCteCopy(name: string): void {
  if (++cteCopies > MAX_CTE_COPIES) {
    throw new HogQLQueryError(`Query expands CTEs more than ${MAX_CTE_COPIES} times (last: ${name})`);
  }
}
