import type { FunctionDef } from './types.js';

type ArgMap = (min: number, max: number | undefined) => [number, number | undefined];

interface Combinator {
  args: ArgMap;
  /** Combinators that may follow this one. */
  next: readonly string[];
}

const same: ArgMap = (min, max) => [min, max];
const plusOne: ArgMap = (min, max) => [min + 1, max === undefined ? undefined : max + 1];
const FINISH = ['If', 'OrNull', 'OrDefault'] as const;

/**
 * ClickHouse aggregate combinators we accept, applied left to right after the base name
 * (`sumArrayIf` = If(Array(sum))). Each appears at most once; the `next` lists keep chains to
 * shapes with a clear meaning.
 */
export const COMBINATORS: Readonly<Record<string, Combinator>> = {
  If: { args: plusOne, next: ['OrNull', 'OrDefault'] },
  Array: { args: same, next: [...FINISH, 'State'] },
  Map: { args: same, next: [...FINISH, 'State'] },
  ForEach: { args: same, next: [...FINISH, 'State'] },
  Distinct: { args: same, next: [...FINISH, 'State'] },
  ArgMin: { args: plusOne, next: FINISH },
  ArgMax: { args: plusOne, next: FINISH },
  State: { args: same, next: ['If'] },
  SimpleState: { args: same, next: ['If'] },
  // A -Merge takes the one state column, whatever the base function's arguments were.
  Merge: { args: () => [1, 1], next: [...FINISH, 'State'] },
  OrNull: { args: same, next: ['If'] },
  OrDefault: { args: same, next: ['If'] },
};

const SUFFIXES = Object.keys(COMBINATORS);
const MAX_CHAIN = 3;

interface Parsed {
  base: FunctionDef;
  chain: string[];
}

/**
 * Splits `name` into a base aggregation (found by `base`) and a valid combinator chain, or
 * returns undefined. An exact base name always wins (`sumMap` is a function, not sum + Map).
 */
export function parseCombinators(
  name: string,
  base: (name: string) => FunctionDef | undefined,
  depth = 0,
): Parsed | undefined {
  const exact = base(name);
  if (exact) return { base: exact, chain: [] };
  if (depth === MAX_CHAIN) return undefined;
  for (const suffix of SUFFIXES) {
    if (!name.endsWith(suffix) || name.length === suffix.length) continue;
    const inner = parseCombinators(name.slice(0, -suffix.length), base, depth + 1);
    if (!inner || inner.chain.includes(suffix)) continue;
    const last = inner.chain.at(-1);
    if (last !== undefined && !COMBINATORS[last]!.next.includes(suffix)) continue;
    return { base: inner.base, chain: [...inner.chain, suffix] };
  }
  return undefined;
}

/** The def of a combined aggregation: the base's parameters, arguments mapped through the chain. */
export function combinedDef(name: string, { base, chain }: Parsed): FunctionDef {
  let min = base.minArgs;
  let max = base.maxArgs;
  for (const suffix of chain) [min, max] = COMBINATORS[suffix]!.args(min, max);
  return {
    clickhouse: name,
    name,
    minArgs: min,
    ...(max === undefined ? {} : { maxArgs: max }),
    ...(base.minParams === undefined ? {} : { minParams: base.minParams }),
    ...(base.maxParams === undefined ? {} : { maxParams: base.maxParams }),
    aggregate: true,
  };
}
