import { AGGREGATION_REMAPS, AGGREGATIONS } from './aggregations.js';
import { combinedDef, parseCombinators } from './combinators.js';
import { QUANTILES } from './quantiles.js';
import type { FunctionDef } from './types.js';

export const AGGREGATION_TABLES = { AGGREGATIONS, QUANTILES, AGGREGATION_REMAPS } as const;

const explicit = new Map<string, FunctionDef>();
for (const t of Object.values(AGGREGATION_TABLES))
  for (const [name, def] of Object.entries(t)) explicit.set(name, def);

/** Bases for combinators: real ClickHouse aggregations printed under their own name. */
const combinable = (name: string): FunctionDef | undefined => {
  const def = explicit.get(name);
  return def && !def.print && def.clickhouse === name ? def : undefined;
};

// Only valid names are cached, so the cache is bounded by the (finite) set of valid chains.
const combined = new Map<string, FunctionDef>();

/** An allowlisted aggregation by its exact spelling, combinators included. */
export function findAggregate(name: string): FunctionDef | undefined {
  const def = explicit.get(name) ?? combined.get(name);
  if (def) return def;
  const parsed = parseCombinators(name, combinable);
  if (!parsed || parsed.chain.length === 0) return undefined;
  const made = combinedDef(name, parsed);
  combined.set(name, made);
  return made;
}

/** Base names that combinators apply to (for tests and suggestions). */
export const combinableNames = (): string[] => [...explicit.keys()].filter((n) => combinable(n));
