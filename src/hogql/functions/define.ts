import type { ArgKind, CallContext, FunctionDef } from './types.js';

type Options = Omit<Partial<FunctionDef>, 'minArgs' | 'maxArgs' | 'name'>;
/** `[minArgs, maxArgs]`, `null` meaning no upper bound, optionally with more of the def. */
export type Spec = readonly [min: number, max: number | null, options?: Options];
export type FunctionTable = Readonly<Record<string, FunctionDef>>;

/** Builds a table of defs from compact specs; the ClickHouse name defaults to the HogQL one. */
export function table(specs: Readonly<Record<string, Spec>>, shared: Options = {}): FunctionTable {
  const out: Record<string, FunctionDef> = {};
  for (const [name, [minArgs, maxArgs, options]] of Object.entries(specs)) {
    out[name] = {
      clickhouse: name,
      minArgs,
      ...(maxArgs === null ? {} : { maxArgs }),
      ...shared,
      ...options,
      name,
    };
  }
  return out;
}

/** The same spec under several names. */
export const each = (names: readonly string[], spec: Spec): Record<string, Spec> =>
  Object.fromEntries(names.map((n) => [n, spec]));

export const CI = { caseInsensitive: true } as const;
/** A plain rename: same arguments, another ClickHouse name. */
export const as = (clickhouse: string, options: Options = {}): Options => ({ clickhouse, ...options });

export const call = (name: string, args: readonly string[]): string => `${name}(${args.join(', ')})`;

/** The team timezone as a bound parameter. */
export const teamTz = (ctx: CallContext): string => ctx.bindString(ctx.timezone);

export function constantOf(ctx: CallContext, i: number): string | number | boolean | null | undefined {
  const node = ctx.nodes[i];
  return node?.node === 'Constant' ? node.value : undefined;
}

export function constantString(ctx: CallContext, i: number): string | undefined {
  const value = constantOf(ctx, i);
  return typeof value === 'string' ? value : undefined;
}

/** Call names whose result is a DateTime/Date, for when the resolver has not typed an argument. */
const DATETIME_CALLS = new Set([
  'now',
  'now64',
  'toDateTime',
  'toDateTime64',
  'toTimeZone',
  'fromUnixTimestamp',
  'toStartOfDay',
  'toStartOfHour',
  'toStartOfMinute',
  'toStartOfInterval',
]);
const DATE_CALLS = new Set([
  'today',
  'yesterday',
  'toDate',
  'toStartOfMonth',
  'toStartOfWeek',
  'toMonday',
  'toStartOfYear',
]);

/** What an argument is: `argTypes` if given, else the resolver's type on the node, else the AST shape. */
export function kindOf(ctx: CallContext, i: number): ArgKind {
  const known = ctx.argTypes?.[i];
  if (known && known !== 'unknown') return known;
  const node = ctx.nodes[i];
  if (!node) return 'unknown';
  const t = node.type;
  if (t?.kind === 'property') return 'string';
  if (t && 'data' in t && t.data !== 'unknown') return t.data === 'json' ? 'string' : t.data;
  if (node.node === 'Constant') {
    const v = node.value;
    if (v === null) return 'null';
    if (typeof v === 'boolean') return 'boolean';
    if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'float';
    if (node.value_type === 'number') return /^-?\d+$/.test(v) ? 'integer' : 'float';
    return 'string';
  }
  if (node.node === 'Call') {
    if (DATETIME_CALLS.has(node.name)) return 'datetime';
    if (DATE_CALLS.has(node.name)) return 'date';
  }
  return 'unknown';
}
