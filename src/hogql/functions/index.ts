import { AGGREGATION_TABLES, combinableNames, findAggregate } from './aggregate-lookup.js';
import { ARITHMETIC } from './arithmetic.js';
import { ARRAY_LAMBDAS, ARRAY_STRING_COMMON, ARRAYS } from './arrays.js';
import { BIT, BITMAP, HASH } from './bit-hash.js';
import { CONVERSIONS } from './conversions.js';
import { DATETIME } from './datetime.js';
import { DATETIME_HOGQL } from './datetime-hogql.js';
import type { FunctionTable } from './define.js';
import { FORBIDDEN_FUNCTIONS } from './forbidden.js';
import { JSON_FUNCTIONS } from './json.js';
import { COMPARISON, LOGICAL, NULLABILITY } from './logic.js';
import { MATHEMATICAL } from './mathematical.js';
import { DISTANCES, GEO, MISC } from './misc.js';
import { STRING_REPLACE, STRING_SEARCH, STRING_SPLIT } from './string-search.js';
import { STRINGS } from './strings.js';
import { closest } from './suggest.js';
import { MAPS, TUPLES } from './tuples-maps.js';
import type { CallContext, FunctionDef } from './types.js';
import { URL_FUNCTIONS } from './url.js';
import { WINDOW_FUNCTIONS } from './window.js';

export { FORBIDDEN_FUNCTIONS } from './forbidden.js';
export type { ArgKind, CallContext, FunctionDef } from './types.js';

/** Every allowlisted function by category (aggregation combinators are derived, see ./combinators.ts). */
export const FUNCTION_CATEGORIES: Readonly<Record<string, FunctionTable>> = {
  arithmetic: ARITHMETIC,
  mathematical: MATHEMATICAL,
  comparison: COMPARISON,
  logical: LOGICAL,
  nullability: NULLABILITY,
  strings: STRINGS,
  stringSearch: STRING_SEARCH,
  stringReplace: STRING_REPLACE,
  stringSplit: STRING_SPLIT,
  arrayStringCommon: ARRAY_STRING_COMMON,
  arrays: ARRAYS,
  arrayLambdas: ARRAY_LAMBDAS,
  conversions: CONVERSIONS,
  datetime: DATETIME,
  datetimeHogql: DATETIME_HOGQL,
  json: JSON_FUNCTIONS,
  url: URL_FUNCTIONS,
  tuples: TUPLES,
  maps: MAPS,
  bit: BIT,
  bitmap: BITMAP,
  hash: HASH,
  misc: MISC,
  geo: GEO,
  distances: DISTANCES,
  window: WINDOW_FUNCTIONS,
  aggregations: AGGREGATION_TABLES.AGGREGATIONS,
  quantiles: AGGREGATION_TABLES.QUANTILES,
  aggregationRemaps: AGGREGATION_TABLES.AGGREGATION_REMAPS,
};

const byName = new Map<string, FunctionDef>();
const byLowerName = new Map<string, FunctionDef>();
const forbidden = new Set(FORBIDDEN_FUNCTIONS);

for (const [category, defs] of Object.entries(FUNCTION_CATEGORIES)) {
  for (const [name, def] of Object.entries(defs)) {
    // Both are programming errors in the tables; failing at load keeps them out of any build.
    if (byName.has(name)) throw new Error(`HogQL function '${name}' is defined twice (${category})`);
    if (forbidden.has(name) || forbidden.has(def.clickhouse))
      throw new Error(`HogQL function '${name}' is forbidden`);
    byName.set(name, def);
    if (def.caseInsensitive) byLowerName.set(name.toLowerCase(), def);
  }
}

/**
 * The allowlisted function called `name`: exact spelling first (aggregate combinators such as
 * `sumIf` or `uniqMerge` included), then the lowercase spelling for case-insensitive functions.
 */
export function findFunction(name: string): FunctionDef | undefined {
  return byName.get(name) ?? findAggregate(name) ?? byLowerName.get(name.toLowerCase());
}

export function findAggregation(name: string): FunctionDef | undefined {
  const def = findFunction(name);
  return def?.aggregate ? def : undefined;
}

export const isAggregation = (name: string): boolean => findAggregation(name) !== undefined;

/** Names offered as suggestions: internal (`_`) names never are; common `-If` forms are. */
const SUGGESTIONS: readonly string[] = [
  ...[...byName.keys()].filter((n) => !n.startsWith('_')),
  ...combinableNames()
    .map((n) => `${n}If`)
    .filter((n) => !byName.has(n)),
];

/** The allowlisted name closest to an unknown one, for "Perhaps you meant 'y(...)'?". */
export const suggestFunction = (name: string): string | undefined => closest(name, SUGGESTIONS);

/** Every explicitly listed HogQL function name (combinator forms excluded). */
export const allFunctionNames = (): string[] => [...byName.keys()];

/**
 * ClickHouse SQL for a validated call: the def's own printer, else `name(params)(args)` with the
 * team timezone appended for timezone-aware functions called without one.
 */
export function printCall(def: FunctionDef, ctx: CallContext): string {
  if (def.print) return def.print(ctx);
  const args = [...ctx.args];
  if (def.tzAware && def.maxArgs !== undefined && args.length < def.maxArgs)
    args.push(ctx.bindString(ctx.timezone));
  const params = ctx.params.length > 0 ? `(${ctx.params.join(', ')})` : '';
  return `${def.clickhouse}${params}(${ctx.distinct ? 'DISTINCT ' : ''}${args.join(', ')})`;
}
