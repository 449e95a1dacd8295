import { HogQLQueryError } from '../errors.js';
import { findAggregate } from './aggregate-lookup.js';
import { as, CI, call, constantString, type FunctionTable, table } from './define.js';
import type { CallContext } from './types.js';

/**
 * `arrayReduce('agg', arr)` names a function by string, which would bypass the allowlist: only a
 * constant naming an allowlisted, non-parametric aggregation passes.
 */
function printArrayReduce(ctx: CallContext): string {
  const name = constantString(ctx, 0);
  const def = name === undefined ? undefined : findAggregate(name);
  if (!def || def.print || (def.minParams ?? 0) > 0) {
    throw new HogQLQueryError(
      name === undefined
        ? 'arrayReduce expects the name of an aggregate function as a constant string first argument'
        : `arrayReduce: unsupported aggregate function '${name}'`,
    );
  }
  return call('arrayReduce', [ctx.bindString(def.clickhouse), ...ctx.args.slice(1)]);
}

/** Functions that take both arrays and strings. */
export const ARRAY_STRING_COMMON: FunctionTable = table({
  empty: [1, 1],
  notEmpty: [1, 1],
  isEmpty: [1, 1, as('empty')],
  isNotEmpty: [1, 1, as('notEmpty')],
  length: [1, 1, CI],
  reverse: [1, 1, CI],
});

export const ARRAYS: FunctionTable = table({
  array: [0, null],
  range: [1, 3],
  arrayConcat: [2, null],
  arrayElement: [2, 2],
  arrayElementOrNull: [2, 2],
  has: [2, 2],
  hasAll: [2, 2],
  hasAny: [2, 2],
  hasSubstr: [2, 2],
  indexOf: [2, 2],
  countEqual: [2, 2],
  arrayEnumerate: [1, 1],
  arrayEnumerateUniq: [1, null],
  arrayEnumerateDense: [1, 1],
  arrayPopBack: [1, 1],
  arrayPopFront: [1, 1],
  arrayPushBack: [2, 2],
  arrayPushFront: [2, 2],
  arrayResize: [2, 3],
  arraySlice: [2, 3],
  arrayUniq: [1, null],
  arrayJoin: [1, 1],
  arrayDifference: [1, 1],
  arrayDistinct: [1, 1],
  arrayIntersect: [1, null],
  arrayUnion: [1, null],
  arrayReverse: [1, 1],
  arrayFlatten: [1, 1],
  arrayCompact: [1, 1],
  arrayZip: [1, null],
  arrayAUC: [2, 3],
  arrayWithConstant: [2, 2],
  arrayRotateLeft: [2, 2],
  arrayRotateRight: [2, 2],
  arrayShiftLeft: [2, 3],
  arrayShiftRight: [2, 3],
  arrayShingles: [2, 2],
  arrayRandomSample: [2, 2],
  arrayShuffle: [1, 2],
  arrayPartialSort: [2, null],
  arrayPartialReverseSort: [2, null],
  arrayMin: [1, 2],
  arrayMax: [1, 2],
  arraySum: [1, 2],
  arrayAvg: [1, 2],
  arrayProduct: [1, 2],
  arrayCumSum: [1, null],
  arrayCumSumNonNegative: [1, null],
  arrayStringConcat: [1, 2],
  arrayDotProduct: [2, 2],
  arrayJaccardIndex: [2, 2],
  arrayReduce: [2, null, { print: printArrayReduce }],
});

/** Higher-order functions: the first argument may be a lambda (`x -> x * 2`). */
export const ARRAY_LAMBDAS: FunctionTable = table({
  arrayMap: [2, null],
  arrayFilter: [2, null],
  arrayFill: [2, null],
  arrayReverseFill: [2, null],
  arraySplit: [2, null],
  arrayReverseSplit: [2, null],
  arrayExists: [1, null],
  arrayAll: [1, null],
  arrayCount: [1, null],
  arrayFirst: [2, null],
  arrayFirstOrNull: [2, null],
  arrayLast: [2, null],
  arrayLastOrNull: [2, null],
  arrayFirstIndex: [2, null],
  arrayLastIndex: [2, null],
  arraySort: [1, null],
  arrayReverseSort: [1, null],
  arrayFold: [3, null],
});
