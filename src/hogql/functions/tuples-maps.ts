import { type FunctionTable, table } from './define.js';

export const TUPLES: FunctionTable = table({
  tuple: [0, null],
  tupleElement: [2, 3],
  untuple: [1, 1],
  tupleHammingDistance: [2, 2],
  tupleToNameValuePairs: [1, 1],
  tupleNames: [1, 1],
  tupleConcat: [1, null],
  tuplePlus: [2, 2],
  tupleMinus: [2, 2],
  tupleMultiply: [2, 2],
  tupleDivide: [2, 2],
  tupleNegate: [1, 1],
  tupleMultiplyByNumber: [2, 2],
  tupleDivideByNumber: [2, 2],
  dotProduct: [2, 2],
});

export const MAPS: FunctionTable = table({
  map: [0, null],
  mapFromArrays: [2, 2],
  mapAdd: [2, null],
  mapSubtract: [2, null],
  mapPopulateSeries: [1, 3],
  mapContains: [2, 2],
  mapKeys: [1, 1],
  mapValues: [1, 1],
  mapContainsKeyLike: [2, 2],
  mapExtractKeyLike: [2, 2],
  mapApply: [2, 2],
  mapFilter: [2, 2],
  mapUpdate: [2, 2],
  mapConcat: [1, null],
  mapSort: [1, 2],
});
