import type { MetaDb } from '../../store/meta/db.js';
import {
  type DistinctIdRecord,
  insertDistinctId,
  insertDistinctIdsOf,
  insertPerson,
  insertPersons,
  type PersonRecord,
} from '../../store/meta/persons.js';

/**
 * The inserts of new persons and distinct ids for one request. Immediate, or deferred: then
 * consecutive inserts are gathered and written as one multi-row statement per table by `flush`,
 * which the processor calls before any other statement on persons (so each still sees what came
 * before it; group statements read no person table) and at the end. A request of 100 new users costs two inserts instead of 200. A
 * deferred person is written as it was when created: later changes are updates, as before.
 */
export function personWrites(db: MetaDb, teamId: number, defer: boolean) {
  const persons: PersonRecord[] = [];
  const distinctIds: DistinctIdRecord[] = [];
  const pendingIds = new Set<string>();
  return {
    async person(person: PersonRecord): Promise<void> {
      if (!defer) return insertPerson(db, person);
      persons.push({ ...person, properties: { ...person.properties } });
    },
    async distinctId(record: DistinctIdRecord): Promise<void> {
      if (!defer) return insertDistinctId(db, teamId, record);
      distinctIds.push({ ...record });
      pendingIds.add(record.distinctId);
    },
    /** Whether `distinctId` waits in a deferred insert. */
    pending: (distinctId: string) => pendingIds.has(distinctId),
    async flush(): Promise<void> {
      // Persons first: distinct ids reference them.
      if (persons.length > 0) await insertPersons(db, persons.splice(0));
      if (distinctIds.length > 0) await insertDistinctIdsOf(db, teamId, distinctIds.splice(0));
      pendingIds.clear();
    },
  };
}

export type PersonWrites = ReturnType<typeof personWrites>;
