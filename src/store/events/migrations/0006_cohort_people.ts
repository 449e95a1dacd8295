import type { EventsMigration } from '../migrate.js';

/**
 * Cohort members. A calculation writes every member with the cohort's next `version`; readers take
 * the rows of the version the metadata store names as finished (`cohorts.version`), so a running
 * calculation is never half-visible, and older versions are deleted once a newer one is finished.
 * Static cohorts use one version and gain rows as persons are added.
 */
export const cohortPeopleTable: EventsMigration = {
  name: '0006_cohort_people',
  statements: (store) => [
    `CREATE TABLE IF NOT EXISTS ${store.table('cohort_people')} (
  team_id Int64,
  cohort_id Int64,
  person_id UUID,
  version Int64,
  _timestamp DateTime64(6, 'UTC') DEFAULT now64(6)
)
ENGINE = ReplacingMergeTree
ORDER BY (team_id, cohort_id, version, person_id)`,
  ],
};
