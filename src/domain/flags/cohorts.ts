import type { PropertyFilter } from './types.js';

/** A cohort's property definition, PostHog's nested `{type: AND|OR, values: [...]}` groups. */
export interface CohortPropertyGroup {
  type: 'AND' | 'OR';
  values: Array<CohortPropertyGroup | PropertyFilter>;
}

/** What flag evaluation needs to know of one cohort. */
export type CohortState =
  /** Property-based: evaluated against the person's properties (nested cohorts included). */
  | { kind: 'properties'; filters: CohortPropertyGroup }
  /** Static (uploaded list) or otherwise precomputed: whether this person is in it. */
  | { kind: 'membership'; member: boolean }
  /** Unknown id, or a kind flags cannot evaluate (behavioural): the flag reports an error. */
  | { kind: 'unavailable' };

/**
 * The port through which flags read cohorts; the cohorts module provides it. `load` answers for the
 * given ids and every cohort they refer to, for one person (null when the distinct id has none),
 * in as few store round trips as it can: it is called at most once per `/flags` request.
 */
export interface CohortLookup {
  load(
    teamId: number,
    cohortIds: readonly number[],
    personId: string | null,
  ): Promise<Map<number, CohortState>>;
  /** Property-based cohorts as posthog-node's local evaluation reads them (`send_cohorts`). */
  definitions(teamId: number, cohortIds: readonly number[]): Promise<Record<string, CohortPropertyGroup>>;
}

/** Raised during evaluation when a condition needs a cohort that cannot be evaluated here. */
export class CohortUnavailable extends Error {
  constructor(readonly cohortId: number) {
    super(`Cohort ${cohortId} cannot be evaluated`);
  }
}

/** Cohort ids a filters document refers to directly. */
export function cohortIdsOf(groups: ReadonlyArray<{ properties?: PropertyFilter[] | null }>): number[] {
  const ids = new Set<number>();
  for (const g of groups)
    for (const p of g.properties ?? []) {
      if (p.type !== 'cohort') continue;
      const id = Number(p.value);
      if (Number.isInteger(id)) ids.add(id);
    }
  return [...ids];
}
