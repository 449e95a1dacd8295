import { bool, iso, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';
import { prepared, preparedRows } from './prepared.js';

export interface PersonRecord {
  id: string;
  teamId: number;
  properties: Record<string, unknown>;
  isIdentified: boolean;
  version: number;
  createdAt: string;
}

/** A `persons` row as either dialect returns it. */
export type PersonRow = {
  id: string;
  team_id: number;
  properties: unknown;
  is_identified: boolean | number;
  version: number;
  created_at: Date | string;
};

export const toPersonRecord = (row: PersonRow): PersonRecord => ({
  id: row.id,
  teamId: row.team_id,
  properties: json<Record<string, unknown>>(row.properties) ?? {},
  isIdentified: bool(row.is_identified),
  version: row.version,
  createdAt: iso(row.created_at),
});

const byDistinctId = prepared(
  (db: MetaDb, teamId: number, distinctId: string) =>
    db
      .selectFrom('person_distinct_ids as d')
      .innerJoin('persons as p', 'p.id', 'd.person_id')
      .selectAll('p')
      .where('d.team_id', '=', teamId)
      .where('d.distinct_id', '=', distinctId),
  2,
);

export async function findPersonByDistinctId(
  db: MetaDb,
  teamId: number,
  distinctId: string,
): Promise<PersonRecord | undefined> {
  const [row] = await byDistinctId(db, teamId, distinctId);
  return row && toPersonRecord(row);
}

const personInsert = prepared(
  (
    db: MetaDb,
    id: string,
    teamId: number,
    properties: string,
    isIdentified: boolean,
    version: number,
    createdAt: string,
  ) =>
    db.insertInto('persons').values({
      id,
      team_id: teamId,
      properties,
      is_identified: isIdentified,
      version,
      created_at: createdAt,
    }),
  6,
);

export async function insertPerson(db: MetaDb, person: PersonRecord): Promise<void> {
  await personInsert(
    db,
    person.id,
    person.teamId,
    toJson(person.properties),
    person.isIdentified,
    person.version,
    person.createdAt,
  );
}

/** Up to 500 rows per statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
function chunks<T>(items: readonly T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Persons by distinct id, in one statement per 500; a distinct id without a person is absent. */
export async function findPersonsByDistinctIds(
  db: MetaDb,
  teamId: number,
  distinctIds: readonly string[],
): Promise<Map<string, PersonRecord>> {
  const found = new Map<string, PersonRecord>();
  const rows = [];
  for (const part of chunks(distinctIds)) {
    rows.push(
      ...(await db
        .selectFrom('person_distinct_ids as d')
        .innerJoin('persons as p', 'p.id', 'd.person_id')
        .selectAll('p')
        .select('d.distinct_id')
        .where('d.team_id', '=', teamId)
        .where('d.distinct_id', 'in', part)
        .execute()),
    );
  }
  // One record per person, whichever of its distinct ids found it: callers change it in place.
  const byId = new Map<string, PersonRecord>();
  for (const row of rows) {
    const person = byId.get(row.id) ?? toPersonRecord(row);
    byId.set(row.id, person);
    found.set(row.distinct_id, person);
  }
  return found;
}

const personsInsert = preparedRows(
  (db: MetaDb, rows) =>
    db.insertInto('persons').values(
      rows.map(([id, team_id, properties, is_identified, version, created_at]) => ({
        id,
        team_id,
        properties,
        is_identified,
        version,
        created_at,
      })) as never,
    ),
  (p: PersonRecord) => [p.id, p.teamId, toJson(p.properties), p.isIdentified, p.version, p.createdAt],
  6,
);

/** Several new persons in one statement per 500 (compiled once per row count). */
export async function insertPersons(db: MetaDb, persons: readonly PersonRecord[]): Promise<void> {
  for (const part of chunks(persons)) await personsInsert(db, part);
}

/** Raised when a person changed since it was read (another request or node wrote it). */
export class PersonVersionConflict extends Error {}

/** Writes `person` (whose `version` was already bumped) only if it still has the version before. */
export async function updatePerson(db: MetaDb, person: PersonRecord): Promise<void> {
  const result = await db
    .updateTable('persons')
    .set({
      properties: toJson(person.properties),
      is_identified: person.isIdentified,
      version: person.version,
      created_at: person.createdAt,
    })
    .where('id', '=', person.id)
    .where('version', '=', person.version - 1)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new PersonVersionConflict(`person ${person.id} changed`);
}

export async function deletePerson(db: MetaDb, id: string): Promise<void> {
  await db.deleteFrom('persons').where('id', '=', id).execute();
}

export interface DistinctIdRecord {
  distinctId: string;
  personId: string;
  version: number;
}

const distinctIdInsert = prepared(
  (db: MetaDb, teamId: number, distinctId: string, personId: string, version: number) =>
    db
      .insertInto('person_distinct_ids')
      .values({ team_id: teamId, distinct_id: distinctId, person_id: personId, version }),
  4,
);

export async function insertDistinctId(db: MetaDb, teamId: number, d: DistinctIdRecord): Promise<void> {
  await distinctIdInsert(db, teamId, d.distinctId, d.personId, d.version);
}

const distinctIdsInsert = preparedRows(
  (db: MetaDb, rows) =>
    db.insertInto('person_distinct_ids').values(
      rows.map(([team_id, distinct_id, person_id, version]) => ({
        team_id,
        distinct_id,
        person_id,
        version,
      })) as never,
    ),
  (d: DistinctIdRecord & { teamId: number }) => [d.teamId, d.distinctId, d.personId, d.version],
  4,
);

/** Several new distinct ids in one statement per 500 (compiled once per row count). */
export async function insertDistinctIdsOf(
  db: MetaDb,
  teamId: number,
  records: readonly DistinctIdRecord[],
): Promise<void> {
  for (const part of chunks(records))
    await distinctIdsInsert(
      db,
      part.map((d) => ({ ...d, teamId })),
    );
}

/** Points every distinct id of `from` at `to`, bumping versions; returns the moved ids. */
export async function moveDistinctIds(
  db: MetaDb,
  teamId: number,
  from: string,
  to: string,
): Promise<DistinctIdRecord[]> {
  const rows = await db
    .selectFrom('person_distinct_ids')
    .select(['distinct_id', 'version'])
    .where('team_id', '=', teamId)
    .where('person_id', '=', from)
    .execute();
  await db
    .updateTable('person_distinct_ids')
    .set((eb) => ({ person_id: to, version: eb('version', '+', 1) }))
    .where('team_id', '=', teamId)
    .where('person_id', '=', from)
    .execute();
  return rows.map((r) => ({ distinctId: r.distinct_id, personId: to, version: r.version + 1 }));
}

export async function groupTypeIndex(
  db: MetaDb,
  teamId: number,
  groupType: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('group_type_mappings')
    .select('group_type_index')
    .where('team_id', '=', teamId)
    .where('group_type', '=', groupType)
    .executeTakeFirst();
  return row?.group_type_index;
}

/** Maps a group type to one of the five group slots; undefined when all five are taken. */
export async function ensureGroupTypeIndex(
  db: MetaDb,
  teamId: number,
  groupType: string,
): Promise<number | undefined> {
  const known = await groupTypeIndex(db, teamId, groupType);
  if (known !== undefined) return known;
  const used = await db
    .selectFrom('group_type_mappings')
    .select('group_type_index')
    .where('team_id', '=', teamId)
    .execute();
  const taken = new Set(used.map((r) => r.group_type_index));
  const free = [0, 1, 2, 3, 4].find((i) => !taken.has(i));
  if (free === undefined) return undefined;
  await db
    .insertInto('group_type_mappings')
    .values({ team_id: teamId, group_type: groupType, group_type_index: free })
    .execute();
  return free;
}

export interface GroupRecord {
  teamId: number;
  groupTypeIndex: number;
  groupKey: string;
  properties: Record<string, unknown>;
  version: number;
  createdAt: string;
}

export async function findGroup(
  db: MetaDb,
  teamId: number,
  index: number,
  key: string,
): Promise<GroupRecord | undefined> {
  const row = await db
    .selectFrom('groups')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('group_type_index', '=', index)
    .where('group_key', '=', key)
    .executeTakeFirst();
  return (
    row && {
      teamId: row.team_id,
      groupTypeIndex: row.group_type_index,
      groupKey: row.group_key,
      properties: json<Record<string, unknown>>(row.properties) ?? {},
      version: row.version,
      createdAt: iso(row.created_at),
    }
  );
}

export async function saveGroup(db: MetaDb, group: GroupRecord, isNew: boolean): Promise<void> {
  const values = {
    team_id: group.teamId,
    group_type_index: group.groupTypeIndex,
    group_key: group.groupKey,
    properties: toJson(group.properties),
    version: group.version,
    created_at: group.createdAt,
  };
  if (isNew) await db.insertInto('groups').values(values).execute();
  else
    await db
      .updateTable('groups')
      .set({ properties: values.properties, version: values.version })
      .where('team_id', '=', group.teamId)
      .where('group_type_index', '=', group.groupTypeIndex)
      .where('group_key', '=', group.groupKey)
      .execute();
}
