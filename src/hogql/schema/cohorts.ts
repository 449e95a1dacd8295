import { col, type TableDef } from './fields.js';

/** Cohort members by calculation version (see events migration 0006); read through `IN COHORT`. */
export const cohortPeople: TableDef = {
  name: 'cohort_people',
  physical: 'cohort_people',
  fields: {
    person_id: col('person_id', 'uuid'),
    cohort_id: col('cohort_id', 'integer'),
    version: col('version', 'integer'),
    team_id: col('team_id', 'integer', { hidden: true }),
  },
};
