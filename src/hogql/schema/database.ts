import { cohortPeople } from './cohorts.js';
import { events } from './events.js';
import { col, type TableDef } from './fields.js';
import { logs } from './logs.js';
import { groups, personDistinctIds, persons } from './persons.js';
import { rawGroups, rawPersonDistinctIds, rawPersons, rawSessionReplayEvents, rawSessions } from './raw.js';
import { sessionReplayEvents, sessions } from './sessions.js';

const numbers: TableDef = {
  name: 'numbers',
  fields: { number: col('number', 'integer') },
  tableFunction: { minArgs: 1, maxArgs: 2 },
};

/**
 * Every table a query may name. Anything not here does not print: no other tables, no database-
 * qualified names, no table functions but `numbers`.
 */
export const TABLES: ReadonlyMap<string, TableDef> = new Map(
  [
    events,
    persons,
    personDistinctIds,
    groups,
    sessions,
    sessionReplayEvents,
    rawPersons,
    rawPersonDistinctIds,
    rawGroups,
    rawSessions,
    rawSessionReplayEvents,
    cohortPeople,
    logs,
    numbers,
  ].map((t) => [t.name, t]),
);

export function findTable(name: string): TableDef | undefined {
  return TABLES.get(name);
}
