import type { Expr } from '../ast.js';
import type { ValueInfo } from '../types.js';

const NON_NULL_CALLS = new Set([
  'count',
  'countIf',
  'uniq',
  'uniqExact',
  'uniqIf',
  'now',
  'now64',
  'today',
  'length',
  'empty',
  'notEmpty',
]);

/** What is known about an expression's value after resolution; unknown means nullable. */
export function infoOf(e: Expr): ValueInfo {
  const t = e.type;
  if (t) {
    switch (t.kind) {
      case 'column':
      case 'alias_ref':
      case 'expression':
        return { data: t.data, nullable: t.nullable };
      case 'property':
        return { data: 'string', nullable: true };
      default:
        return { data: 'unknown', nullable: true };
    }
  }
  switch (e.node) {
    case 'Constant': {
      const v = e.value;
      if (v === null) return { data: 'null', nullable: true };
      if (typeof v === 'boolean') return { data: 'boolean', nullable: false };
      if (typeof v === 'number' || e.value_type === 'number') {
        return { data: Number.isInteger(v) ? 'integer' : 'float', nullable: false };
      }
      return { data: 'string', nullable: false };
    }
    case 'Alias':
      return infoOf(e.expr);
    case 'CompareOperation':
    case 'And':
    case 'Or':
    case 'Not':
    case 'BetweenExpr':
    case 'IsDistinctFrom':
      return { data: 'boolean', nullable: false };
    case 'ArithmeticOperation': {
      const l = infoOf(e.left);
      const r = infoOf(e.right);
      return { data: 'unknown', nullable: l.nullable || r.nullable };
    }
    case 'Array':
      return { data: 'array', nullable: false };
    case 'Tuple':
      return { data: 'tuple', nullable: false };
    case 'Call':
      return { data: 'unknown', nullable: !NON_NULL_CALLS.has(e.name) };
    default:
      return { data: 'unknown', nullable: true };
  }
}
