import type { CohortLookup, CohortRef } from '../../hogql/cohorts.js';
import type { PropertyTypeLookup, PropertyValueType } from '../../hogql/property-types.js';
import { cohortRefs } from '../../store/meta/cohorts.js';
import type { MetaDb } from '../../store/meta/db.js';
import { typedPropertyDefinitions } from '../../store/meta/definitions.js';
import type { Deps } from '../deps.js';
import { PROPERTY_PARENT } from './detect.js';

export interface TypedContext {
  propertyType: PropertyTypeLookup;
  cohorts: CohortLookup;
}

/** How long a project's property types and cohort versions are reused between queries. */
const TTL_MS = 2000;
const cache = new WeakMap<MetaDb, Map<number, { at: number; value: Promise<TypedContext> }>>();

async function load(meta: MetaDb, teamId: number): Promise<TypedContext> {
  const [defs, cohorts] = await Promise.all([
    typedPropertyDefinitions(meta, teamId),
    cohortRefs(meta, teamId),
  ]);
  const types = new Map<string, PropertyValueType>();
  for (const d of defs)
    types.set(`${d.type}:${d.groupTypeIndex}:${d.name}`, d.propertyType as PropertyValueType);
  const byId = new Map<number, CohortRef>();
  const byName = new Map<string, CohortRef>();
  for (const c of cohorts) {
    const ref = { id: c.id, version: c.version, name: c.name };
    byId.set(c.id, ref);
    // PostHog picks the first cohort of that name; ours are read in id order.
    if (c.name !== null && !byName.has(c.name)) byName.set(c.name, ref);
  }
  return {
    propertyType: (source, key) => {
      if (source.kind === 'event') return types.get(`${PROPERTY_PARENT.event}:-1:${key}`);
      if (source.kind === 'person') return types.get(`${PROPERTY_PARENT.person}:-1:${key}`);
      return types.get(`${PROPERTY_PARENT.group}:${source.index}:${key}`);
    },
    cohorts: (ref) => (typeof ref === 'number' ? byId.get(ref) : byName.get(ref)),
  };
}

/** The project's property types and cohorts for the HogQL compiler (cached for two seconds). */
export function typedContext(deps: Pick<Deps, 'meta'>, teamId: number): Promise<TypedContext> {
  let perDb = cache.get(deps.meta);
  if (!perDb) {
    perDb = new Map();
    cache.set(deps.meta, perDb);
  }
  const hit = perDb.get(teamId);
  const nowMs = Date.now();
  if (hit && nowMs - hit.at < TTL_MS) return hit.value;
  const value = load(deps.meta, teamId);
  perDb.set(teamId, { at: nowMs, value });
  value.catch(() => perDb.delete(teamId));
  return value;
}

/** Forgets a project's cached types and cohorts (after a cohort or definition changed here). */
export function forgetTypedContext(deps: Pick<Deps, 'meta'>, teamId: number): void {
  cache.get(deps.meta)?.delete(teamId);
}
