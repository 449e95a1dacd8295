import { validationError } from '../../errors.js';
import { cohortRefs } from '../../store/meta/cohorts.js';
import type { Deps } from '../deps.js';

const COHORT_TYPES = new Set(['cohort', 'static-cohort', 'precalculated-cohort']);

/**
 * The cohort ids a property filter tree names (lists, `{type: AND|OR, values}` groups, and
 * `{type: "cohort", value: id}` leaves); a value that is not an id is kept as given so the caller
 * can refuse it.
 */
export function cohortIdsIn(filters: unknown, out: unknown[] = [], depth = 0): unknown[] {
  if (depth > 32 || filters === null || typeof filters !== 'object') return out;
  if (Array.isArray(filters)) {
    for (const f of filters) cohortIdsIn(f, out, depth + 1);
    return out;
  }
  const o = filters as Record<string, unknown>;
  if (Array.isArray(o.values) && (o.type === 'AND' || o.type === 'OR'))
    return cohortIdsIn(o.values, out, depth + 1);
  if (typeof o.type === 'string' && COHORT_TYPES.has(o.type))
    out.push(Array.isArray(o.value) ? o.value[0] : o.value);
  return out;
}

const asId = (raw: unknown): number | null => {
  const n = typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? Number(raw) : raw;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : null;
};

/**
 * Refuses conditions naming a cohort this project does not have (another project's, a deleted
 * one, or none at all): saved, they would only fail later, for every evaluation (PostHog's
 * `Cohort with id … does not exist`). `selfId`: a cohort may not name itself.
 */
export async function checkCohortReferences(
  deps: Pick<Deps, 'meta'>,
  teamId: number,
  ids: readonly unknown[],
  attr: string,
  selfId?: number,
): Promise<void> {
  if (ids.length === 0) return;
  const known = new Set((await cohortRefs(deps.meta, teamId)).map((c) => c.id));
  for (const raw of ids) {
    const id = asId(raw);
    if (id !== null && id === selfId)
      throw validationError('A cohort cannot refer to itself.', attr, 'cohort_self_reference');
    if (id === null || !known.has(id))
      throw validationError(
        `Cohort with id ${String(raw).slice(0, 100)} does not exist`,
        attr,
        'cohort_does_not_exist',
      );
  }
}
