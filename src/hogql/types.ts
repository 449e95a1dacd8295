/**
 * What the resolver learns about a node, stored on it as `type`. The printers read these to decide
 * how a name prints (which table alias and physical column), whether a value can be NULL (for the
 * null-safe comparisons) and whether a DateTime needs the project timezone.
 */
export type DataType =
  | 'string'
  | 'integer'
  | 'float'
  | 'boolean'
  | 'datetime'
  | 'date'
  | 'uuid'
  | 'json'
  | 'array'
  | 'tuple'
  | 'null'
  | 'unknown';

/** A physical column of a table in the FROM clause (or an output column of a subquery). */
export interface ColumnType {
  kind: 'column';
  /** Alias of the table (or subquery) in its SELECT, as printed. */
  table: string;
  /** Column name as printed after the alias. */
  column: string;
  data: DataType;
  nullable: boolean;
  /** A database DateTime column: printed in the project timezone. */
  tz?: boolean;
  /** The declared table it belongs to, when it is one (for materialized property columns). */
  def?: string;
}

/** `properties.a.b` on a JSON String column: a nullable string. */
export interface PropertyType {
  kind: 'property';
  table: string;
  column: string;
  chain: Array<string | number>;
  /** A column holding exactly this single-key property (`mat_$browser`). */
  materialized?: string | undefined;
  def?: string | undefined;
}

/** A name bound by a lambda (`x -> x + 1`). */
export interface LambdaArgType {
  kind: 'lambda_arg';
  name: string;
}

/** A reference to an alias defined in the same SELECT list. */
export interface AliasRefType {
  kind: 'alias_ref';
  name: string;
  data: DataType;
  nullable: boolean;
}

/** A JoinExpr whose table is a declared physical table. */
export interface TableRefType {
  kind: 'table_ref';
  /** Physical table name (unqualified). */
  table: string;
  alias: string;
  /** Read with FINAL (ReplacingMergeTree tables that count). */
  final: boolean;
  /** Exempt from the team guard (table functions). */
  unguarded?: boolean;
}

/** A name that stands for an expression (a computed field, a `WITH 1 AS x` constant). */
export interface ExpressionType {
  kind: 'expression';
  /** Resolved expression printed in the name's place. */
  expr: import('./ast.js').Expr;
  data: DataType;
  nullable: boolean;
}

export type HogQLType =
  | ColumnType
  | PropertyType
  | LambdaArgType
  | AliasRefType
  | TableRefType
  | ExpressionType;

/** The type of an expression for comparisons and output columns. */
export interface ValueInfo {
  data: DataType;
  nullable: boolean;
}
