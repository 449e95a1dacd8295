import { toJson } from './codec.js';
import type { MetaDb } from './db.js';
import { type PersonRecord, toPersonRecord } from './persons.js';

/** A person as the persons API shows it: the record and every distinct id pointing at it. */
export interface PersonWithIds extends PersonRecord {
  distinctIds: string[];
}

/** Persons of a team by uuid (unknown or other teams' ids are absent), with their distinct ids. */
export async function personsByIds(
  db: MetaDb,
  teamId: number,
  ids: readonly string[],
): Promise<Map<string, PersonWithIds>> {
  const out = new Map<string, PersonWithIds>();
  for (let i = 0; i < ids.length; i += 500) {
    const part = ids.slice(i, i + 500);
    const rows = await db
      .selectFrom('persons')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('id', 'in', part)
      .execute();
    for (const row of rows) out.set(row.id, { ...toPersonRecord(row), distinctIds: [] });
    if (rows.length === 0) continue;
    const dids = await db
      .selectFrom('person_distinct_ids')
      .select(['person_id', 'distinct_id'])
      .where('team_id', '=', teamId)
      .where(
        'person_id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('distinct_id')
      .execute();
    for (const d of dids) out.get(d.person_id)?.distinctIds.push(d.distinct_id);
  }
  return out;
}

/** Person ids for distinct ids of a team (unknown distinct ids are absent). */
export async function personIdsByDistinctIds(
  db: MetaDb,
  teamId: number,
  distinctIds: readonly string[],
): Promise<string[]> {
  const ids = new Set<string>();
  for (let i = 0; i < distinctIds.length; i += 500) {
    const rows = await db
      .selectFrom('person_distinct_ids')
      .select('person_id')
      .where('team_id', '=', teamId)
      .where('distinct_id', 'in', distinctIds.slice(i, i + 500))
      .execute();
    for (const r of rows) ids.add(r.person_id);
  }
  return [...ids];
}

/** Writes new properties with a version bump; false when the person changed meanwhile. */
export async function setPersonProperties(
  db: MetaDb,
  person: PersonRecord,
  properties: Record<string, unknown>,
): Promise<boolean> {
  const result = await db
    .updateTable('persons')
    .set({ properties: toJson(properties), version: person.version + 1 })
    .where('id', '=', person.id)
    .where('team_id', '=', person.teamId)
    .where('version', '=', person.version)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Removes persons and their distinct ids (a later event with one of them makes a new person). */
export async function deletePersonsById(db: MetaDb, teamId: number, ids: readonly string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    const part = ids.slice(i, i + 500);
    await db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('person_distinct_ids')
        .where('team_id', '=', teamId)
        .where('person_id', 'in', part)
        .execute();
      await trx.deleteFrom('persons').where('team_id', '=', teamId).where('id', 'in', part).execute();
    });
  }
}
