import { CI, type FunctionTable, table } from './define.js';

export const ARITHMETIC: FunctionTable = table({
  plus: [2, 2],
  minus: [2, 2],
  multiply: [2, 2],
  divide: [2, 2],
  intDiv: [2, 2],
  intDivOrZero: [2, 2],
  modulo: [2, 2],
  moduloOrZero: [2, 2],
  positiveModulo: [2, 2],
  negate: [1, 1],
  abs: [1, 1, CI],
  gcd: [2, 2],
  lcm: [2, 2],
  max2: [2, 2],
  min2: [2, 2],
  multiplyDecimal: [2, 3],
  divideDecimal: [2, 3],
});
