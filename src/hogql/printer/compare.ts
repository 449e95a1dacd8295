import type { CompareOp } from '../ast.js';
import { HogQLQueryError } from '../errors.js';

export interface Operand {
  sql: string;
  nullable: boolean;
  /** The literal NULL. */
  isNull: boolean;
}

const EQUALITY: Partial<Record<CompareOp, (a: string, b: string) => string>> = {
  '==': (a, b) => `equals(${a}, ${b})`,
  like: (a, b) => `like(${a}, ${b})`,
  ilike: (a, b) => `ilike(${a}, ${b})`,
  '=~': (a, b) => `match(${a}, ${b})`,
  '=~*': (a, b) => `match(${a}, concat('(?i)', ${b}))`,
};

const INEQUALITY: Partial<Record<CompareOp, (a: string, b: string) => string>> = {
  '!=': (a, b) => `notEquals(${a}, ${b})`,
  'not like': (a, b) => `notLike(${a}, ${b})`,
  'not ilike': (a, b) => `notILike(${a}, ${b})`,
  '!~': (a, b) => `not(match(${a}, ${b}))`,
  '!~*': (a, b) => `not(match(${a}, concat('(?i)', ${b})))`,
};

const ORDERING: Partial<Record<CompareOp, string>> = {
  '<': 'less',
  '<=': 'lessOrEquals',
  '>': 'greater',
  '>=': 'greaterOrEquals',
};

const MEMBERSHIP: Partial<Record<CompareOp, string>> = {
  in: 'in',
  'not in': 'notIn',
  'global in': 'globalIn',
  'global not in': 'globalNotIn',
};

/**
 * HogQL's null-safe comparisons: NULL equals NULL, NULL differs from any value, and ordering with
 * NULL is false. In join constraints (`plain`) or when neither side can be NULL, the plain function.
 */
export function printCompare(op: CompareOp, left: Operand, right: Operand, plain: boolean): string {
  const membership = MEMBERSHIP[op];
  if (membership) return `${membership}(${left.sql}, ${right.sql})`;
  const ordering = ORDERING[op];
  if (ordering) {
    const sql = `${ordering}(${left.sql}, ${right.sql})`;
    return plain || (!left.nullable && !right.nullable) ? sql : `ifNull(${sql}, 0)`;
  }
  const eq = EQUALITY[op];
  const ne = INEQUALITY[op];
  const build = eq ?? ne;
  if (!build) throw new HogQLQueryError(`Unknown comparison operator: ${op}`);
  const sql = build(left.sql, right.sql);
  if (plain) return sql;
  if (left.isNull && right.isNull) return eq ? '1' : '0';
  if (right.isNull) return eq ? `isNull(${left.sql})` : `isNotNull(${left.sql})`;
  if (left.isNull) return eq ? `isNull(${right.sql})` : `isNotNull(${right.sql})`;
  if (!left.nullable && !right.nullable) return sql;
  if (!left.nullable || !right.nullable) return `ifNull(${sql}, ${eq ? 0 : 1})`;
  return eq
    ? `ifNull(${sql}, and(isNull(${left.sql}), isNull(${right.sql})))`
    : `ifNull(${sql}, or(isNotNull(${left.sql}), isNotNull(${right.sql})))`;
}
