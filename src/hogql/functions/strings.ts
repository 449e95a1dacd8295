import { as, CI, call, type FunctionTable, table } from './define.js';
import type { CallContext } from './types.js';

/**
 * `concat` never returns NULL in HogQL: NULL constants become '', other constants are
 * stringified, and expressions are stringified with NULL read as ''.
 */
function printConcat(ctx: CallContext): string {
  const parts = ctx.args.map((arg, i) => {
    const node = ctx.nodes[i];
    if (node?.node !== 'Constant') return `ifNull(toString(${arg}), '')`;
    if (node.value === null) return "''";
    return typeof node.value === 'string' && node.value_type !== 'number' ? arg : `toString(${arg})`;
  });
  return call('concat', parts);
}

/** `trim(s, chars)` takes ClickHouse's SQL form; with one argument the plain function is enough. */
const trimmer =
  (side: 'BOTH' | 'LEADING' | 'TRAILING', single: string) =>
  (ctx: CallContext): string =>
    ctx.args.length === 1 ? call(single, ctx.args) : `trim(${side} ${ctx.args[1]} FROM ${ctx.args[0]})`;

const trimBoth = { clickhouse: 'trimBoth', print: trimmer('BOTH', 'trimBoth') };
const trimLeft = { clickhouse: 'trimLeft', print: trimmer('LEADING', 'trimLeft') };
const trimRight = { clickhouse: 'trimRight', print: trimmer('TRAILING', 'trimRight') };

/** PostgreSQL's `split_part(s, delimiter, n)`: '' when there is no n-th part. */
const printSplitPart = (ctx: CallContext): string =>
  `arrayElement(splitByString(${ctx.args[1]}, ${ctx.args[0]}), ${ctx.args[2]})`;

export const STRINGS: FunctionTable = table({
  left: [2, 2, as('leftUTF8')],
  right: [2, 2, as('rightUTF8')],
  lengthUTF8: [1, 1],
  leftPad: [2, 3],
  rightPad: [2, 3],
  leftPadUTF8: [2, 3],
  rightPadUTF8: [2, 3],
  lpad: [3, 3, as('leftPad')],
  rpad: [3, 3, as('rightPad')],
  lower: [1, 1, CI],
  upper: [1, 1, CI],
  lowerUTF8: [1, 1],
  upperUTF8: [1, 1],
  initcap: [1, 1],
  initcapUTF8: [1, 1],
  isValidUTF8: [1, 1],
  toValidUTF8: [1, 1],
  repeat: [2, 2],
  format: [2, null],
  reverseUTF8: [1, 1],
  concat: [2, null, { ...CI, print: printConcat }],
  concatWithSeparator: [2, null],
  substring: [2, 3, CI],
  substringUTF8: [2, 3],
  substringIndex: [3, 3],
  appendTrailingCharIfAbsent: [2, 2],
  convertCharset: [3, 3],
  base58Encode: [1, 1],
  base58Decode: [1, 1],
  tryBase58Decode: [1, 1],
  base64Encode: [1, 1],
  base64Decode: [1, 1],
  tryBase64Decode: [1, 1],
  endsWith: [2, 2],
  startsWith: [2, 2],
  encodeXMLComponent: [1, 1],
  decodeXMLComponent: [1, 1],
  decodeHTMLComponent: [1, 1],
  extractTextFromHTML: [1, 1],
  ascii: [1, 1, CI],
  char: [1, null],
  soundex: [1, 1],
  editDistance: [2, 2],
  editDistanceUTF8: [2, 2],
  damerauLevenshteinDistance: [2, 2],
  jaroSimilarity: [2, 2],
  jaroWinklerSimilarity: [2, 2],
  stringJaccardIndex: [2, 2],
  split_part: [3, 3, { clickhouse: 'splitByString', print: printSplitPart }],
  trim: [1, 2, { ...CI, ...trimBoth }],
  btrim: [1, 2, trimBoth],
  trimLeft: [1, 2, trimLeft],
  ltrim: [1, 2, trimLeft],
  trimRight: [1, 2, trimRight],
  rtrim: [1, 2, trimRight],
});
