import type { Expr, SelectQuery } from '../ast.js';
import type { DataType } from '../types.js';

/** A field of a virtual table. */
export type FieldDef =
  /** A physical column (or, on a lazy table, an output column of its generated subquery). */
  | { kind: 'column'; column: string; data: DataType; nullable?: boolean; hidden?: boolean }
  /** Computed from other fields of the same table; `expr` is HogQL over those fields. */
  | { kind: 'expression'; expr: () => Expr; data: DataType; nullable?: boolean; hidden?: boolean }
  /** Another table joined on demand when a query reaches through this field. */
  | {
      kind: 'lazy_join';
      table: string;
      join: 'LEFT JOIN' | 'INNER JOIN';
      /** Field of this table and field of the joined table that must be equal. */
      from: string;
      to: string;
      /** Extra equality on the joined table (`groups.index = 2`). */
      where?: { field: string; value: number };
    }
  /** Fields that live on this table under another name (`poe.properties` → `person_properties`). */
  | { kind: 'virtual'; fields: Record<string, FieldDef> }
  /** Another path to follow instead (`person` → `pdi.person`). */
  | { kind: 'traverser'; chain: string[] };

export interface TableDef {
  name: string;
  fields: Record<string, FieldDef>;
  /** Physical table in Burrow's database (raw tables). */
  physical?: string;
  /** Read with FINAL. */
  final?: boolean;
  /**
   * A lazy table: replaced, wherever it is used, by a SELECT over raw tables that produces the
   * requested fields (and nothing else, so unused aggregates cost nothing).
   */
  lazy?: (fields: readonly string[]) => SelectQuery;
  /** A table function (`numbers(n)`): needs no team guard, takes arguments. */
  tableFunction?: { minArgs: number; maxArgs: number };
}

export const col = (
  column: string,
  data: DataType,
  options: { nullable?: boolean; hidden?: boolean } = {},
): FieldDef => ({ kind: 'column', column, data, ...options });

/** Names of the fields `SELECT *` returns: visible columns and expressions. */
export function starFields(table: TableDef): string[] {
  return Object.entries(table.fields)
    .filter(([, f]) => (f.kind === 'column' || f.kind === 'expression') && !f.hidden)
    .map(([name]) => name);
}
