import { CI, type FunctionTable, table } from './define.js';

/**
 * Comparison, logical, conditional and NULL-handling functions. The printer turns calls to the
 * comparison names into compare operations so they get the null-safe treatment.
 */
export const COMPARISON: FunctionTable = table({
  equals: [2, 2],
  notEquals: [2, 2],
  less: [2, 2],
  greater: [2, 2],
  lessOrEquals: [2, 2],
  greaterOrEquals: [2, 2],
  like: [2, 2],
  ilike: [2, 2],
  notLike: [2, 2],
  notILike: [2, 2],
  in: [2, 2],
  notIn: [2, 2],
});

export const LOGICAL: FunctionTable = table({
  and: [2, null],
  or: [2, null],
  xor: [2, null],
  not: [1, 1, CI],
  if: [3, 3, CI],
  multiIf: [3, null],
});

export const NULLABILITY: FunctionTable = table({
  isNull: [1, 1, CI],
  isNotNull: [1, 1],
  coalesce: [1, null, CI],
  ifNull: [2, 2, CI],
  nullIf: [2, 2, CI],
  assumeNotNull: [1, 1],
  toNullable: [1, 1],
});
