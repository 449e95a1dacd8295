import { cloneAst, type Expr, type Field } from '../ast.js';
import { HogQLQueryError, locate } from '../errors.js';
import type { ColumnType, PropertyType } from '../types.js';
import { checkPropertyChain, propertyOf, resolveInSource, unresolved, withMaterialized } from './fields.js';
import { infoOf } from './info.js';
import { countCteCopy, expandCte, type Scope, type TableSource } from './scope.js';

export interface SubqueryResolver {
  resolveSubquery(q: Expr & { node: 'SelectQuery' | 'SelectSetQuery' }, scope: Scope): void;
}

const RESERVED_ALIASES = new Set(['team_id', 'true', 'false', 'null']);

/** Resolves names in an expression, in place; returns the expression (never replaced). */
export function resolveExpr(sub: SubqueryResolver, expr: Expr, scope: Scope, within?: TableSource): Expr {
  try {
    return resolveNode(sub, expr, scope, within);
  } catch (err) {
    // The error points at the expression it is about (the SQL editor underlines that span).
    throw locate(err, expr);
  }
}

function resolveNode(sub: SubqueryResolver, expr: Expr, scope: Scope, within?: TableSource): Expr {
  const r = { resolveExpr: (e: Expr, s: Scope, w?: TableSource) => resolveExpr(sub, e, s, w) };
  const walk = (e: Expr): Expr => resolveExpr(sub, e, scope, within);
  switch (expr.node) {
    case 'Constant':
      return expr;
    case 'Field':
      resolveField(r, expr, scope, within);
      return expr;
    case 'Placeholder':
      throw new HogQLQueryError(`Unresolved placeholder: {${printChain(expr.expr)}}`);
    case 'Alias': {
      if (RESERVED_ALIASES.has(expr.alias.toLowerCase())) {
        throw new HogQLQueryError(`Alias "${expr.alias}" is a reserved keyword`);
      }
      scope.resolving.add(expr.alias);
      try {
        walk(expr.expr);
      } finally {
        scope.resolving.delete(expr.alias);
      }
      return expr;
    }
    case 'And':
    case 'Or':
    case 'Array':
    case 'Tuple':
      for (const e of expr.exprs) walk(e);
      return expr;
    case 'Not':
    case 'TypeCast':
      walk(expr.expr);
      return expr;
    case 'CompareOperation':
      if (expr.op === 'in cohort' || expr.op === 'not in cohort') {
        throw new HogQLQueryError('Cohorts are not supported in Burrow');
      }
      walk(expr.left);
      walk(expr.right);
      return expr;
    case 'ArithmeticOperation':
    case 'IsDistinctFrom':
      walk(expr.left);
      walk(expr.right);
      return expr;
    case 'BetweenExpr':
      walk(expr.expr);
      walk(expr.low);
      walk(expr.high);
      return expr;
    case 'Call':
      for (const e of expr.args) walk(e);
      for (const e of expr.params ?? []) walk(e);
      if (expr.filter_expr) walk(expr.filter_expr);
      for (const e of expr.order_by ?? []) walk(e);
      return expr;
    case 'Lambda':
      scope.lambdaArgs.push(expr.args);
      try {
        walk(expr.expr);
      } finally {
        scope.lambdaArgs.pop();
      }
      return expr;
    case 'Dict':
      for (const [k, v] of expr.items) {
        walk(k);
        walk(v);
      }
      return expr;
    case 'ArrayAccess': {
      walk(expr.array);
      walk(expr.property);
      const key = expr.property.node === 'Constant' ? expr.property.value : undefined;
      const base = jsonBase(expr.array);
      if (base && (typeof key === 'string' || typeof key === 'number')) {
        expr.type = extend(base, key);
      } else if (key === 0) {
        checkPropertyChain([0]);
      }
      return expr;
    }
    case 'TupleAccess': {
      walk(expr.tuple);
      const base = jsonBase(expr.tuple);
      if (base) expr.type = extend(base, expr.index);
      else checkPropertyChain([expr.index]);
      return expr;
    }
    case 'ArraySlice':
      walk(expr.array);
      if (expr.start_expr) walk(expr.start_expr);
      if (expr.end_expr) walk(expr.end_expr);
      return expr;
    case 'WindowFunction':
      for (const e of expr.exprs ?? []) walk(e);
      for (const e of expr.args ?? []) walk(e);
      if (expr.over_expr) {
        for (const e of expr.over_expr.partition_by ?? []) walk(e);
        for (const e of expr.over_expr.order_by ?? []) walk(e);
      }
      return expr;
    case 'OrderExpr':
      walk(expr.expr);
      return expr;
    case 'SelectQuery':
    case 'SelectSetQuery':
      sub.resolveSubquery(expr, scope);
      return expr;
    default:
      throw new HogQLQueryError(`Unsupported syntax: ${(expr as { node: string }).node}`);
  }
}

/** A property chain or JSON column that `[key]` / `.N` extends. */
function jsonBase(e: Expr): PropertyType | ColumnType | undefined {
  const t = e.type;
  if (t?.kind === 'property') return t;
  if (t?.kind === 'column' && t.data === 'json') return t;
  return undefined;
}

function extend(base: PropertyType | ColumnType, key: string | number): PropertyType {
  checkPropertyChain([key]);
  if (base.kind === 'column') {
    return withMaterialized({ ...propertyOf(base.table, base.column, 'json', [key], [key]), def: base.def });
  }
  return withMaterialized({ ...base, chain: [...base.chain, key] });
}

function printChain(e: Expr): string {
  return e.node === 'Field' ? e.chain.join('.') : '...';
}

function resolveField(
  r: Parameters<typeof resolveInSource>[0],
  node: Field,
  scope: Scope,
  within?: TableSource,
): void {
  const chain = node.chain;
  if (within) {
    resolveInSource(r, scope, within, chain, node, chain);
    return;
  }
  const [head] = chain;
  if (typeof head !== 'string' || head === '*') {
    throw new HogQLQueryError(
      head === '*' ? 'Cannot use * here' : `Unable to resolve field: ${chain.join('.')}`,
    );
  }
  if (scope.lambdaArgs.some((args) => args.includes(head))) {
    if (chain.length > 1) throw unresolved(chain);
    node.type = { kind: 'lambda_arg', name: head };
    return;
  }
  const alias = scope.aliases.get(head);
  if (alias && !scope.resolving.has(head) && chain.length === 1) {
    node.type = { kind: 'alias_ref', name: head, ...infoOf(alias.expr) };
    return;
  }
  const source = chain.length > 1 ? scope.sources.get(head) : undefined;
  if (source) {
    resolveInSource(r, scope, source, chain.slice(1), node, chain);
    return;
  }
  const cte = scope.ctes.get(head);
  if (cte && cte.cte_type === 'column') {
    countCteCopy(head);
    const expr = expandCte(head, cte, () => r.resolveExpr(cloneAst(cte.expr), scope));
    node.type = { kind: 'expression', expr, ...infoOf(expr) };
    return;
  }
  const matches = scope.order.filter(
    (s) => s.fromClause && (s.columns ? s.columns.has(head) : !!s.def?.fields[head]),
  );
  if (matches.length > 1) {
    throw new HogQLQueryError(`Ambiguous query. Found multiple sources for field: ${head}`);
  }
  const [match] = matches;
  if (!match) throw unresolved(chain);
  resolveInSource(r, scope, match, chain, node, chain);
}
