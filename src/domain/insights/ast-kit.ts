import {
  type ArithmeticOp,
  and,
  call,
  compare,
  constant,
  type Expr,
  field,
  type JoinExpr,
  type SelectQuery,
} from '../../hogql/ast.js';

/** Small AST builders the insight runners share (lambdas, indexing, conditionals). */
export const num = (n: number) => constant(n);
export const fn = (name: string, ...args: Expr[]) => call(name, args);
export const lambda = (args: string[], expr: Expr): Expr => ({ node: 'Lambda', args, expr });
export const at = (array: Expr, index: Expr | number): Expr => ({
  node: 'ArrayAccess',
  array,
  property: typeof index === 'number' ? num(index) : index,
});
export const nth = (tuple: Expr, index: number): Expr => ({ node: 'TupleAccess', tuple, index });
export const tuple = (...exprs: Expr[]): Expr => ({ node: 'Tuple', exprs });
export const array = (...exprs: Expr[]): Expr => ({ node: 'Array', exprs });
export const math = (op: ArithmeticOp, left: Expr, right: Expr): Expr => ({
  node: 'ArithmeticOperation',
  op,
  left,
  right,
});
export const ifElse = (cond: Expr, then: Expr, otherwise: Expr) => fn('if', cond, then, otherwise);
export const eq = (l: Expr, r: Expr) => compare('==', l, r);
export const alias = (name: string, expr: Expr): Expr => ({ node: 'Alias', alias: name, expr });
export const or = (...exprs: Expr[]): Expr =>
  exprs.length === 1 ? (exprs[0] as Expr) : { node: 'Or', exprs };
export const all = (exprs: Expr[]): Expr => (exprs.length ? and(...exprs) : constant(true));
export const v = (name: string) => field(name);

export const fromTable = (name: string): JoinExpr => ({ node: 'JoinExpr', table: field(name) });
export const fromSelect = (query: SelectQuery): JoinExpr => ({ node: 'JoinExpr', table: query });

/** A SELECT built from parts, absent clauses null. */
export function select(parts: Partial<SelectQuery> & Pick<SelectQuery, 'select'>): SelectQuery {
  return { node: 'SelectQuery', ...parts };
}

/** True when an expression is the constant `true` (an empty filter). */
export const isTrue = (e: Expr) => e.node === 'Constant' && e.value === true;
