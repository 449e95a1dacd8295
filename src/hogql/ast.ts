/**
 * PostHog's HogQL AST, in the JSON shape `@posthog/hogql-parser` emits: nodes are discriminated by
 * `node`, fields are snake_case, absent clauses are null. Positions are optional because generated
 * nodes have none. The resolver adds `type` (see ./types.ts); nothing else is added to nodes.
 */
import type { HogQLType } from './types.js';

export interface Position {
  line: number;
  column: number;
  offset: number;
}

interface Base {
  start?: Position;
  end?: Position;
  /** Set by the resolver. */
  type?: HogQLType;
}

export type ConstantValue = string | number | boolean | null;

export interface Constant extends Base {
  node: 'Constant';
  value: ConstantValue;
  /** 'number' when a numeric value is carried as a string: ±Infinity, NaN, beyond 2^63. */
  value_type?: 'number';
}

export interface Field extends Base {
  node: 'Field';
  chain: Array<string | number>;
  from_asterisk?: boolean;
}

export interface Placeholder extends Base {
  node: 'Placeholder';
  expr: Expr;
}

export interface Alias extends Base {
  node: 'Alias';
  alias: string;
  expr: Expr;
  hidden?: boolean;
}

export interface And extends Base {
  node: 'And';
  exprs: Expr[];
}

export interface Or extends Base {
  node: 'Or';
  exprs: Expr[];
}

export interface Not extends Base {
  node: 'Not';
  expr: Expr;
}

export type CompareOp =
  | '=='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | 'like'
  | 'ilike'
  | 'not like'
  | 'not ilike'
  | 'in'
  | 'not in'
  | 'global in'
  | 'global not in'
  | 'in cohort'
  | 'not in cohort'
  | '=~'
  | '=~*'
  | '!~'
  | '!~*';

export interface CompareOperation extends Base {
  node: 'CompareOperation';
  op: CompareOp;
  left: Expr;
  right: Expr;
  is_null_comparison_style?: boolean;
}

export interface IsDistinctFrom extends Base {
  node: 'IsDistinctFrom';
  left: Expr;
  right: Expr;
  negated: boolean;
}

export type ArithmeticOp = '+' | '-' | '*' | '/' | '%';

export interface ArithmeticOperation extends Base {
  node: 'ArithmeticOperation';
  op: ArithmeticOp;
  left: Expr;
  right: Expr;
}

export interface BetweenExpr extends Base {
  node: 'BetweenExpr';
  expr: Expr;
  low: Expr;
  high: Expr;
  negated: boolean;
}

export interface Call extends Base {
  node: 'Call';
  name: string;
  args: Expr[];
  params?: Expr[] | null;
  distinct?: boolean;
  filter_expr?: Expr | null;
  order_by?: OrderExpr[] | null;
}

export interface TypeCast extends Base {
  node: 'TypeCast';
  expr: Expr;
  type_name: string;
}

export interface Lambda extends Base {
  node: 'Lambda';
  args: string[];
  expr: Expr;
}

export interface ArrayNode extends Base {
  node: 'Array';
  exprs: Expr[];
}

export interface Tuple extends Base {
  node: 'Tuple';
  exprs: Expr[];
}

export interface Dict extends Base {
  node: 'Dict';
  items: Array<[Expr, Expr]>;
}

export interface ArrayAccess extends Base {
  node: 'ArrayAccess';
  array: Expr;
  property: Expr;
  nullish?: boolean;
}

export interface ArraySlice extends Base {
  node: 'ArraySlice';
  array: Expr;
  start_expr: Expr | null;
  end_expr: Expr | null;
}

export interface TupleAccess extends Base {
  node: 'TupleAccess';
  tuple: Expr;
  index: number;
  nullish?: boolean;
}

export interface WindowFrameExpr extends Base {
  node: 'WindowFrameExpr';
  frame_type: 'CURRENT ROW' | 'PRECEDING' | 'FOLLOWING';
  frame_value?: number | null;
}

export interface WindowExpr extends Base {
  node: 'WindowExpr';
  partition_by?: Expr[] | null;
  order_by?: OrderExpr[] | null;
  frame_method?: 'ROWS' | 'RANGE' | null;
  frame_start?: WindowFrameExpr | null;
  frame_end?: WindowFrameExpr | null;
}

export interface WindowFunction extends Base {
  node: 'WindowFunction';
  name: string;
  exprs?: Expr[] | null;
  args?: Expr[] | null;
  over_expr?: WindowExpr | null;
  over_identifier?: string | null;
}

export interface WithFillExpr extends Base {
  node: 'WithFillExpr';
  from_value?: Expr | null;
  to_value?: Expr | null;
  step_value?: Expr | null;
}

export interface OrderExpr extends Base {
  node: 'OrderExpr';
  expr: Expr;
  order: 'ASC' | 'DESC';
  nulls?: 'FIRST' | 'LAST' | null;
  with_fill?: WithFillExpr | null;
}

export interface LimitByExpr extends Base {
  node: 'LimitByExpr';
  n: Expr;
  offset_value?: Expr | null;
  exprs: Expr[];
}

export interface RatioExpr extends Base {
  node: 'RatioExpr';
  left: Constant;
  right?: Constant | null;
}

export interface SampleExpr extends Base {
  node: 'SampleExpr';
  sample_value: RatioExpr;
  offset_value?: RatioExpr | null;
}

export interface JoinConstraint extends Base {
  node: 'JoinConstraint';
  expr: Expr;
  constraint_type: 'ON' | 'USING';
}

export interface JoinExpr extends Base {
  node: 'JoinExpr';
  table: Expr | null;
  alias?: string | null;
  column_aliases?: string[] | null;
  join_type?: string | null;
  constraint?: JoinConstraint | null;
  next_join?: JoinExpr | null;
  sample?: SampleExpr | null;
  table_final?: boolean | null;
  table_args?: Expr[] | null;
}

export interface CTE extends Base {
  node: 'CTE';
  name: string;
  expr: Expr;
  cte_type: 'column' | 'subquery';
  columns?: string[] | null;
  materialized?: boolean | null;
  using_key?: string[] | null;
  /** `WITH RECURSIVE`: parsed, but the resolver refuses a CTE that names itself. */
  recursive?: boolean;
}

export interface SelectQuery extends Base {
  node: 'SelectQuery';
  ctes?: CTE[] | null;
  select: Expr[];
  distinct?: boolean | null;
  select_from?: JoinExpr | null;
  array_join_op?: string | null;
  array_join_list?: Expr[] | null;
  window_exprs?: Record<string, WindowExpr> | null;
  where?: Expr | null;
  prewhere?: Expr | null;
  having?: Expr | null;
  qualify?: Expr | null;
  group_by?: Expr[] | null;
  order_by?: OrderExpr[] | null;
  limit?: Expr | null;
  limit_by?: LimitByExpr | null;
  limit_with_ties?: boolean | null;
  offset?: Expr | null;
  settings?: Record<string, string | number | boolean> | null;
  view_name?: string | null;
}

export type SetOperator = 'UNION ALL' | 'UNION DISTINCT' | 'INTERSECT' | 'INTERSECT DISTINCT' | 'EXCEPT';

export interface SelectSetNode extends Base {
  node: 'SelectSetNode';
  select_query: SelectQuery | SelectSetQuery;
  set_operator: SetOperator;
}

export interface SelectSetQuery extends Base {
  node: 'SelectSetQuery';
  initial_select_query: SelectQuery | SelectSetQuery;
  subsequent_select_queries: SelectSetNode[];
}

export type AnySelect = SelectQuery | SelectSetQuery;

export type Expr =
  | Constant
  | Field
  | Placeholder
  | Alias
  | And
  | Or
  | Not
  | CompareOperation
  | IsDistinctFrom
  | ArithmeticOperation
  | BetweenExpr
  | Call
  | TypeCast
  | Lambda
  | ArrayNode
  | Tuple
  | Dict
  | ArrayAccess
  | ArraySlice
  | TupleAccess
  | WindowFunction
  | OrderExpr
  | SelectQuery
  | SelectSetQuery;

export type Node =
  | Expr
  | JoinExpr
  | JoinConstraint
  | CTE
  | SelectSetNode
  | WindowExpr
  | WindowFrameExpr
  | WithFillExpr
  | LimitByExpr
  | SampleExpr
  | RatioExpr;

export const isSelect = (e: Node | null | undefined): e is AnySelect =>
  !!e && (e.node === 'SelectQuery' || e.node === 'SelectSetQuery');

export const constant = (value: ConstantValue): Constant => ({ node: 'Constant', value });
export const field = (...chain: Array<string | number>): Field => ({ node: 'Field', chain });
export const call = (name: string, args: Expr[], extra: Partial<Call> = {}): Call => ({
  node: 'Call',
  name,
  args,
  ...extra,
});
export const and = (...exprs: Expr[]): Expr =>
  exprs.length === 1 ? (exprs[0] as Expr) : { node: 'And', exprs };
export const compare = (op: CompareOp, left: Expr, right: Expr): CompareOperation => ({
  node: 'CompareOperation',
  op,
  left,
  right,
});

/** A deep copy of an AST (plain objects and arrays only); much faster than structuredClone. */
export function cloneAst<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneAst) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key in value) out[key] = cloneAst((value as Record<string, unknown>)[key]);
  return out as T;
}
