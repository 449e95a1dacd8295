import { findCohort } from '../../store/meta/cohorts.js';
import { findTeam } from '../../store/meta/teams.js';
import type { Deps } from '../deps.js';
import type { CohortLookup, CohortPropertyGroup, CohortState } from '../flags/cohorts.js';
import type { PropertyFilter } from '../flags/types.js';
import { cohortPersonFilters, isPersonInCohort } from './cohorts.js';

/**
 * Cohorts as feature flags read them. A cohort made only of person-property filters is evaluated
 * against the person's properties, as PostHog's flags service does (so it needs no calculation and
 * works in local evaluation); any other cohort (static lists, behaviour) answers from its last
 * calculated membership. A deleted or unknown id, or one never calculated, is unavailable and the
 * flag reports an error rather than guessing.
 */
export function cohortLookup(deps: Deps): CohortLookup {
  const asGroup = (filters: unknown[]): CohortPropertyGroup => ({
    type: 'AND',
    values: filters as PropertyFilter[],
  });
  return {
    async load(teamId, cohortIds, personId) {
      const states = new Map<number, CohortState>();
      const team = await findTeam(deps.meta, teamId);
      for (const id of cohortIds) {
        const filters = await cohortPersonFilters(deps, teamId, id);
        if (filters) {
          states.set(id, { kind: 'properties', filters: asGroup(filters) });
          continue;
        }
        const cohort = await findCohort(deps.meta, teamId, id);
        if (!team || !cohort || cohort.deleted || cohort.version === null) {
          states.set(id, { kind: 'unavailable' });
          continue;
        }
        const member = personId ? await isPersonInCohort(deps, team, id, personId) : false;
        states.set(id, { kind: 'membership', member });
      }
      return states;
    },
    async definitions(teamId, cohortIds) {
      const out: Record<string, CohortPropertyGroup> = {};
      for (const id of cohortIds) {
        const filters = await cohortPersonFilters(deps, teamId, id);
        if (filters) out[String(id)] = asGroup(filters);
      }
      return out;
    },
  };
}
