import { HogQLQueryError } from '../errors.js';
import { as, call, constantOf, each, type FunctionTable, kindOf, table } from './define.js';
import type { CallContext } from './types.js';

/** HogQL's lenient casts: NULL instead of an error when the value does not fit the type. */
const castOrNull = (type: string) => (ctx: CallContext) =>
  call('accurateCastOrNull', [ctx.args[0]!, `'${type}'`]);
const castTo = (type: string) => ({ clickhouse: 'accurateCastOrNull', print: castOrNull(type) });

/** `toDecimal(x, scale)`: the scale becomes part of the type name, so it must be a small constant. */
function printToDecimal(ctx: CallContext): string {
  const scale = constantOf(ctx, 1);
  if (typeof scale !== 'number' || !Number.isInteger(scale) || scale < 0 || scale > 18) {
    throw new HogQLQueryError('toDecimal expects a constant scale between 0 and 18 as its second argument');
  }
  return castOrNull(`Decimal64(${scale})`)(ctx);
}

/** `toDate` parses strings leniently but converts dates and datetimes directly. */
function printToDate(ctx: CallContext): string {
  const kind = kindOf(ctx, 0);
  return call(kind === 'date' || kind === 'datetime' ? 'toDate' : 'toDateOrNull', ctx.args);
}

const REINTERPRET = [
  'UInt8',
  'UInt16',
  'UInt32',
  'UInt64',
  'UInt128',
  'UInt256',
  'Int8',
  'Int16',
  'Int32',
  'Int64',
  'Int128',
  'Int256',
  'Float32',
  'Float64',
  'UUID',
] as const;

export const CONVERSIONS: FunctionTable = table({
  toInt: [1, 1, castTo('Int64')],
  toFloat: [1, 1, castTo('Float64')],
  toUUID: [1, 1, castTo('UUID')],
  toDecimal: [2, 2, { clickhouse: 'accurateCastOrNull', print: printToDecimal }],
  toNullableString: [1, 1, castTo('Nullable(String)')],
  toIntOrZero: [1, 1, as('toInt64OrZero')],
  toFloatOrZero: [1, 1, as('toFloat64OrZero')],
  toFloatOrDefault: [1, 2, as('toFloat64OrDefault')],
  toUUIDOrDefault: [2, 2],
  toDate: [1, 1, { clickhouse: 'toDateOrNull', print: printToDate }],
  to_date: [1, 1, { clickhouse: 'toDateOrNull', print: printToDate }],
  // `as const`: an object literal's `toString` key is not contextually typed by the index signature
  toString: [1, 2] as const,
  toBool: [1, 1],
  toJSONString: [1, 1],
  toTypeName: [1, 1],
  hex: [1, 1],
  unhex: [1, 1],
  bin: [1, 1],
  unbin: [1, 1],
  ...each(
    REINTERPRET.map((t) => `reinterpretAs${t}`),
    [1, 1],
  ),
  // internal: exact ClickHouse casts that throw on bad input, used by generated queries
  _toInt8: [1, 1, as('toInt8')],
  _toInt16: [1, 1, as('toInt16')],
  _toInt32: [1, 1, as('toInt32')],
  _toInt64: [1, 1, as('toInt64')],
  _toUInt64: [1, 1, as('toUInt64')],
  _toUInt128: [1, 1, as('toUInt128')],
  _toDate: [1, 1, as('toDate')],
  _toNullableBool: [1, 1, castTo('Bool')],
});
