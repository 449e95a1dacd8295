import { uuidv7 } from '../../capture/uuid.js';
import type { MetaDb } from '../../store/meta/db.js';
import {
  type DistinctIdRecord,
  deletePerson,
  ensureGroupTypeIndex,
  findGroup,
  findPersonByDistinctId,
  findPersonsByDistinctIds,
  type GroupRecord,
  moveDistinctIds,
  type PersonRecord,
  saveGroup,
  updatePerson,
} from '../../store/meta/persons.js';
import { SLICE_MS, slicer } from '../slices.js';
import { PersonCache } from './person-cache.js';
import { applyPersonUpdates, mergeProperties } from './person-updates.js';
import { uuidFromDistinctId } from './person-uuid.js';
import { personWrites } from './person-writes.js';
import { isPersonless, personlessEnrichment } from './personless.js';

/** What one batch changed about persons and groups, to be mirrored into the events store. */
export interface PersonChanges {
  persons: Map<string, PersonRecord & { isDeleted: boolean }>;
  distinctIds: Array<DistinctIdRecord & { teamId: number; isDeleted: boolean }>;
  groups: Map<string, GroupRecord>;
  /** Every distinct id this batch looked at: forgotten by the cache if the batch fails. */
  seen: Set<string>;
}

export const emptyChanges = (): PersonChanges => ({
  persons: new Map(),
  distinctIds: [],
  groups: new Map(),
  seen: new Set(),
});

export interface EventForPersons {
  event: string;
  distinctId: string;
  properties: Record<string, unknown>;
  timestamp: string;
}

export interface PersonEnrichment {
  personId: string;
  personProperties: Record<string, unknown>;
  /** `personProperties` as JSON text, when the cache already has it (cached-persons.ts). */
  personPropertiesJson?: string;
  personCreatedAt: string;
  groups: [string, string, string, string, string];
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * Person and group processing for one team inside one metadata transaction, event by event in
 * order: identify/alias/merge, property updates, group identify, and the person and group
 * columns each event carries as of its ingestion.
 */
export function createPersonProcessor(
  db: MetaDb,
  teamId: number,
  changes: PersonChanges,
  cache: PersonCache = new PersonCache(0),
) {
  const { process } = personProcessor(db, teamId, changes, cache, false);
  return process;
}

/**
 * Person columns for every event of a request, in order, inside the caller's transaction. Unlike
 * calling `createPersonProcessor` per event, the distinct ids the cache lacks are looked up in one
 * statement first, and new persons are inserted together (see `personWrites`).
 */
export async function processPersons(
  db: MetaDb,
  teamId: number,
  changes: PersonChanges,
  cache: PersonCache,
  events: readonly EventForPersons[],
): Promise<PersonEnrichment[]> {
  const processor = personProcessor(db, teamId, changes, cache, true);
  const ids: string[] = [];
  for (const e of events) {
    if (isPersonless(e)) {
      if (cache.personlessId(teamId, e.distinctId) === undefined) ids.push(e.distinctId);
      continue;
    }
    ids.push(e.distinctId);
    const p = e.properties;
    const other =
      e.event === '$identify'
        ? p.$anon_distinct_id
        : e.event === '$create_alias' || e.event === '$merge_dangerously'
          ? p.alias
          : undefined;
    if (isString(other)) ids.push(other);
  }
  await processor.prefetch(ids);
  const out: PersonEnrichment[] = [];
  // With SQLite every statement settles at once (microtasks only): without pauses a request of
  // thousands of events would hold the event loop from its first person to its last.
  const pause = slicer(SLICE_MS, teamId);
  for (const e of events) {
    out.push(await processor.process(e));
    await pause();
  }
  await processor.writes.flush();
  return out;
}

function personProcessor(
  db: MetaDb,
  teamId: number,
  changes: PersonChanges,
  cache: PersonCache,
  defer: boolean,
) {
  const writes = personWrites(db, teamId, defer);
  /**
   * Persons this request has seen, by distinct id, whatever the shared cache keeps or evicts:
   * a person created here may not be in the metadata store yet (deferred insert).
   */
  const local = new Map<string, PersonRecord>();
  const known = (distinctId: string) => local.get(distinctId) ?? cache.get(teamId, distinctId);
  const remember = (distinctId: string, person: PersonRecord) => {
    local.set(distinctId, person);
    cache.set(teamId, distinctId, person);
  };
  /** Distinct ids the prefetch found without a person (anything since is in `local`). */
  const absent = new Set<string>();

  async function prefetch(distinctIds: readonly string[]): Promise<void> {
    const missing = [...new Set(distinctIds)].filter((d) => !known(d));
    if (missing.length === 0) return;
    const found = await findPersonsByDistinctIds(db, teamId, missing);
    for (const d of missing) {
      changes.seen.add(d);
      const person = found.get(d);
      if (person) remember(d, person);
      else absent.add(d);
    }
  }

  async function find(distinctId: string): Promise<PersonRecord | undefined> {
    changes.seen.add(distinctId);
    const cached = known(distinctId);
    if (cached) return cached;
    if (absent.has(distinctId)) return undefined;
    if (writes.pending(distinctId)) await writes.flush();
    const person = await findPersonByDistinctId(db, teamId, distinctId);
    if (person) remember(distinctId, person);
    return person;
  }

  const touch = (person: PersonRecord, isDeleted = false) =>
    changes.persons.set(person.id, { ...person, isDeleted });

  async function create(distinctIds: string[], timestamp: string): Promise<PersonRecord> {
    const person: PersonRecord = {
      id: uuidv7(),
      teamId,
      properties: {},
      isIdentified: false,
      version: 0,
      createdAt: timestamp,
    };
    await writes.person(person);
    for (const distinctId of distinctIds) {
      const record = { distinctId, personId: person.id, version: 0 };
      await writes.distinctId(record);
      changes.distinctIds.push({ ...record, teamId, isDeleted: false });
      changes.seen.add(distinctId);
      remember(distinctId, person);
    }
    touch(person);
    return person;
  }

  async function addDistinctId(person: PersonRecord, distinctId: string): Promise<void> {
    const record = { distinctId, personId: person.id, version: 0 };
    await writes.distinctId(record);
    changes.distinctIds.push({ ...record, teamId, isDeleted: false });
    changes.seen.add(distinctId);
    remember(distinctId, person);
  }

  /** Makes `primaryId` and `otherId` one person; `force` also merges two identified persons. */
  async function merge(primaryId: string, otherId: string, timestamp: string, force: boolean): Promise<void> {
    if (primaryId === otherId) return;
    const primary = await find(primaryId);
    const other = await find(otherId);
    if (!primary && !other) {
      await create([primaryId, otherId], timestamp);
    } else if (primary && !other) {
      await addDistinctId(primary, otherId);
    } else if (!primary && other) {
      await addDistinctId(other, primaryId);
    } else if (primary && other && primary.id !== other.id) {
      if (other.isIdentified && !force) return;
      primary.properties = mergeProperties(primary.properties, other.properties);
      primary.createdAt = primary.createdAt < other.createdAt ? primary.createdAt : other.createdAt;
      primary.version += 1;
      await writes.flush();
      await updatePerson(db, primary);
      for (const moved of await moveDistinctIds(db, teamId, other.id, primary.id)) {
        changes.distinctIds.push({ ...moved, teamId, isDeleted: false });
        changes.seen.add(moved.distinctId);
        remember(moved.distinctId, primary);
      }
      await deletePerson(db, other.id);
      touch(primary);
      touch({ ...other, version: other.version + 1 }, true);
    }
  }

  async function groupTypeIndex(type: string): Promise<number | undefined> {
    const known = cache.groupType(teamId, type);
    if (known !== undefined) return known;
    const index = await ensureGroupTypeIndex(db, teamId, type);
    if (index !== undefined) cache.setGroupType(teamId, type, index);
    return index;
  }

  async function groupColumns(properties: Record<string, unknown>): Promise<PersonEnrichment['groups']> {
    const columns: PersonEnrichment['groups'] = ['', '', '', '', ''];
    const groups = properties.$groups;
    if (!groups || typeof groups !== 'object') return columns;
    for (const [type, key] of Object.entries(groups)) {
      const index = await groupTypeIndex(type);
      if (index !== undefined && (typeof key === 'string' || typeof key === 'number'))
        columns[index] = String(key);
    }
    return columns;
  }

  async function groupIdentify(properties: Record<string, unknown>, timestamp: string): Promise<void> {
    const type = properties.$group_type;
    const key = properties.$group_key;
    if (!isString(type) || (typeof key !== 'string' && typeof key !== 'number')) return;
    const index = await groupTypeIndex(type);
    if (index === undefined) return;
    const existing = await findGroup(db, teamId, index, String(key));
    const group: GroupRecord = existing ?? {
      teamId,
      groupTypeIndex: index,
      groupKey: String(key),
      properties: {},
      version: 0,
      createdAt: timestamp,
    };
    const set = properties.$group_set;
    if (set && typeof set === 'object') Object.assign(group.properties, set);
    group.version += existing ? 1 : 0;
    await saveGroup(db, group, !existing);
    changes.groups.set(`${index}:${group.groupKey}`, group);
  }

  /**
   * PostHog's personless events: the distinct id's person if it has one, else no person is made
   * and the event gets the distinct id's deterministic id, which becomes this person's once the
   * distinct id is identified or aliased (queries map events to persons by distinct id).
   */
  async function personless(distinctId: string): Promise<PersonEnrichment> {
    let person = known(distinctId);
    let id = person ? person.id : cache.personlessId(teamId, distinctId);
    if (id === undefined) {
      person = await find(distinctId);
      id = person ? person.id : uuidFromDistinctId(teamId, distinctId);
      if (!person) cache.setPersonless(teamId, distinctId, id);
    }
    return personlessEnrichment(person, id);
  }

  async function process(e: EventForPersons): Promise<PersonEnrichment> {
    if (isPersonless(e)) return personless(e.distinctId);
    const p = e.properties;
    if (e.event === '$identify' && isString(p.$anon_distinct_id)) {
      await merge(e.distinctId, p.$anon_distinct_id, e.timestamp, false);
    } else if (e.event === '$create_alias' && isString(p.alias)) {
      await merge(e.distinctId, p.alias, e.timestamp, false);
    } else if (e.event === '$merge_dangerously' && isString(p.alias)) {
      await merge(e.distinctId, p.alias, e.timestamp, true);
    } else if (e.event === '$groupidentify') {
      await groupIdentify(p, e.timestamp);
    }
    let person = await find(e.distinctId);
    person ??= await create([e.distinctId], e.timestamp);
    let changed = applyPersonUpdates(person.properties, p);
    if (e.event === '$identify' && !person.isIdentified) {
      person.isIdentified = true;
      changed = true;
    }
    if (changed) {
      person.version += 1;
      await writes.flush();
      await updatePerson(db, person);
      touch(person);
    }
    return {
      personId: person.id,
      personProperties: { ...person.properties },
      personCreatedAt: person.createdAt,
      groups: await groupColumns(p),
    };
  }

  return { process, prefetch, writes };
}
