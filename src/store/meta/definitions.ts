import { randomUUID as newUuid } from 'node:crypto';
import { sql } from 'kysely';
import { bool, iso, isoOrNull, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';
import './data-tables.js';

export interface EventSeen {
  teamId: number;
  name: string;
  lastSeenAt: string;
}

export interface PropertySeen {
  teamId: number;
  name: string;
  type: number;
  groupTypeIndex: number;
  propertyType: string | null;
}

export interface EventPropertySeen {
  teamId: number;
  event: string;
  property: string;
}

const CHUNK = 200;
const chunks = <T>(rows: readonly T[]) => {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(rows.slice(i, i + CHUNK));
  return out;
};

/** New event names get a definition; known ones a later `last_seen_at`. */
export async function upsertEventDefinitions(db: MetaDb, rows: readonly EventSeen[], now: string) {
  for (const part of chunks(rows)) {
    await db
      .insertInto('event_definitions')
      .values(
        part.map((r) => ({
          id: newUuid(),
          team_id: r.teamId,
          name: r.name,
          tags: '[]',
          created_at: now,
          last_seen_at: r.lastSeenAt,
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(['team_id', 'name'])
          .doUpdateSet({ last_seen_at: (eb) => eb.ref('excluded.last_seen_at') }),
      )
      .execute();
  }
}

/**
 * New properties get a definition; a known one without a type takes the first type seen, and a
 * typed one never changes (PostHog: the first detected type wins).
 */
export async function upsertPropertyDefinitions(db: MetaDb, rows: readonly PropertySeen[]) {
  for (const part of chunks(rows)) {
    await db
      .insertInto('property_definitions')
      .values(
        part.map((r) => ({
          id: newUuid(),
          team_id: r.teamId,
          name: r.name,
          type: r.type,
          group_type_index: r.groupTypeIndex,
          property_type: r.propertyType,
          is_numerical: r.propertyType === 'Numeric',
          tags: '[]',
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(['team_id', 'type', 'group_type_index', 'name'])
          .doUpdateSet({
            property_type: (eb) => eb.ref('excluded.property_type'),
            is_numerical: (eb) => eb.ref('excluded.is_numerical'),
          })
          .where('property_definitions.property_type', 'is', null),
      )
      .execute();
  }
}

export async function insertEventProperties(db: MetaDb, rows: readonly EventPropertySeen[]) {
  for (const part of chunks(rows)) {
    await db
      .insertInto('event_properties')
      .values(part.map((r) => ({ team_id: r.teamId, event: r.event, property: r.property })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

export interface EventDefinitionRecord {
  id: string;
  teamId: number;
  name: string;
  description: string | null;
  tags: string[];
  verified: boolean;
  verifiedAt: string | null;
  hidden: boolean;
  createdAt: string;
  updatedAt: string | null;
  lastSeenAt: string | null;
}

type EventRow = {
  id: string;
  team_id: number;
  name: string;
  description: string | null;
  tags: unknown;
  verified: boolean | number;
  verified_at: Date | string | null;
  hidden: boolean | number;
  created_at: Date | string;
  updated_at: Date | string | null;
  last_seen_at: Date | string | null;
};

const toEvent = (r: EventRow): EventDefinitionRecord => ({
  id: r.id,
  teamId: r.team_id,
  name: r.name,
  description: r.description,
  tags: json<string[]>(r.tags) ?? [],
  verified: bool(r.verified),
  verifiedAt: isoOrNull(r.verified_at),
  hidden: bool(r.hidden),
  createdAt: iso(r.created_at),
  updatedAt: isoOrNull(r.updated_at),
  lastSeenAt: isoOrNull(r.last_seen_at),
});

export interface EventDefinitionFilter {
  search?: string | undefined;
  names?: string[] | undefined;
  excludeHidden?: boolean | undefined;
}

/** The LIKE escape character, bound as a parameter (a backslash literal differs by dialect). */
const ESC = '\\';

/** LIKE pattern for a substring, wildcards in the text escaped. */
export const containsPattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** A name column containing `search`, case-insensitively: both lists' `search`. */
const nameContains = (column: string, search: string) =>
  sql<boolean>`lower(${sql.ref(column)}) like lower(${containsPattern(search)}) escape ${ESC}`;

/** `names` for an IN list: an empty list matches nothing (SQL has no empty IN). */
const namesOrNone = (names: string[]) => (names.length ? names : ['\u0000']);

/** The fields both definition kinds let people change, as columns (`verified_at` follows `verified`). */
function describedSet(
  set: { description?: string | null; tags?: string[]; verified?: boolean; hidden?: boolean },
  now: string,
) {
  return {
    ...(set.description !== undefined ? { description: set.description } : {}),
    ...(set.tags !== undefined ? { tags: toJson(set.tags) } : {}),
    ...(set.verified !== undefined ? { verified: set.verified, verified_at: set.verified ? now : null } : {}),
    ...(set.hidden !== undefined ? { hidden: set.hidden } : {}),
    updated_at: now,
  };
}

export async function listEventDefinitions(
  db: MetaDb,
  teamId: number,
  filter: EventDefinitionFilter,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: EventDefinitionRecord[] }> {
  let q = db.selectFrom('event_definitions').where('team_id', '=', teamId);
  if (filter.search) q = q.where(nameContains('name', filter.search));
  if (filter.names) q = q.where('name', 'in', namesOrNone(filter.names));
  if (filter.excludeHidden) q = q.where('hidden', '=', false);
  const [{ n }] = (await q.select((eb) => eb.fn.countAll<number>().as('n')).execute()) as [{ n: number }];
  const rows = await q
    .selectAll()
    .orderBy(sql`last_seen_at is null`)
    .orderBy('last_seen_at', 'desc')
    .orderBy('name')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { count: Number(n), results: rows.map(toEvent) };
}

export async function findEventDefinition(
  db: MetaDb,
  teamId: number,
  by: { id: string } | { name: string },
): Promise<EventDefinitionRecord | undefined> {
  let q = db.selectFrom('event_definitions').selectAll().where('team_id', '=', teamId);
  q = 'id' in by ? q.where('id', '=', by.id) : q.where('name', '=', by.name);
  const row = await q.executeTakeFirst();
  return row && toEvent(row);
}

export async function updateEventDefinition(
  db: MetaDb,
  id: string,
  set: { description?: string | null; tags?: string[]; verified?: boolean; hidden?: boolean },
  now: string,
): Promise<void> {
  await db.updateTable('event_definitions').set(describedSet(set, now)).where('id', '=', id).execute();
}

export async function deleteEventDefinition(db: MetaDb, teamId: number, id: string): Promise<void> {
  await db.deleteFrom('event_definitions').where('team_id', '=', teamId).where('id', '=', id).execute();
}

export interface PropertyDefinitionRecord {
  id: string;
  teamId: number;
  name: string;
  type: number;
  groupTypeIndex: number | null;
  propertyType: string | null;
  isNumerical: boolean;
  description: string | null;
  tags: string[];
  verified: boolean;
  verifiedAt: string | null;
  hidden: boolean;
  updatedAt: string | null;
}

type PropertyRow = {
  id: string;
  team_id: number;
  name: string;
  type: number;
  group_type_index: number;
  property_type: string | null;
  is_numerical: boolean | number;
  description: string | null;
  tags: unknown;
  verified: boolean | number;
  verified_at: Date | string | null;
  hidden: boolean | number;
  updated_at: Date | string | null;
};

const toProperty = (r: PropertyRow): PropertyDefinitionRecord => ({
  id: r.id,
  teamId: r.team_id,
  name: r.name,
  type: r.type,
  groupTypeIndex: r.group_type_index < 0 ? null : r.group_type_index,
  propertyType: r.property_type,
  isNumerical: bool(r.is_numerical),
  description: r.description,
  tags: json<string[]>(r.tags) ?? [],
  verified: bool(r.verified),
  verifiedAt: isoOrNull(r.verified_at),
  hidden: bool(r.hidden),
  updatedAt: isoOrNull(r.updated_at),
});

export interface PropertyDefinitionFilter {
  type: number;
  groupTypeIndex?: number | undefined;
  search?: string | undefined;
  /** Only properties seen on these events (`filter_by_event_names`). */
  onEvents?: string[] | undefined;
  /** Seen-on-these-events first, with `is_seen_on_filtered_events` (`event_names` alone). */
  rankEvents?: string[] | undefined;
  isNumerical?: boolean | undefined;
  propertyType?: string | undefined;
  names?: string[] | undefined;
  excludeNames?: string[] | undefined;
  excludeHidden?: boolean | undefined;
  /** true: only `$feature/…` properties; false: none of them. */
  featureFlags?: boolean | undefined;
  /** Leave out PostHog's own properties (`$…`, `utm_…`). */
  excludeCore?: boolean | undefined;
}

export async function listPropertyDefinitions(
  db: MetaDb,
  teamId: number,
  f: PropertyDefinitionFilter,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: Array<PropertyDefinitionRecord & { seenOnEvents: boolean | null }> }> {
  let q = db
    .selectFrom('property_definitions as p')
    .where('p.team_id', '=', teamId)
    .where('p.type', '=', f.type);
  if (f.groupTypeIndex !== undefined) q = q.where('p.group_type_index', '=', f.groupTypeIndex);
  if (f.search) q = q.where(nameContains('p.name', f.search));
  if (f.isNumerical !== undefined) q = q.where('p.is_numerical', '=', f.isNumerical);
  if (f.propertyType) q = q.where('p.property_type', '=', f.propertyType);
  if (f.names) q = q.where('p.name', 'in', namesOrNone(f.names));
  if (f.excludeNames?.length) q = q.where('p.name', 'not in', f.excludeNames);
  if (f.excludeHidden) q = q.where('p.hidden', '=', false);
  if (f.featureFlags !== undefined)
    q = q.where(
      f.featureFlags ? sql<boolean>`p.name like '$feature/%'` : sql<boolean>`p.name not like '$feature/%'`,
    );
  if (f.excludeCore)
    q = q.where(sql<boolean>`p.name not like ${'$%'} and p.name not like ${'utm\\_%'} escape ${ESC}`);
  const seen = (events: string[]) =>
    sql<boolean>`exists (select 1 from event_properties e where e.team_id = p.team_id and e.property = p.name and e.event in (${sql.join(namesOrNone(events))}))`;
  if (f.onEvents) q = q.where(seen(f.onEvents));
  const [{ n }] = (await q.select((eb) => eb.fn.countAll<number>().as('n')).execute()) as [{ n: number }];
  const rank = f.rankEvents?.length ? f.rankEvents : undefined;
  let rowsQ = q.selectAll('p');
  if (rank) rowsQ = rowsQ.select(seen(rank).as('seen_on')).orderBy(sql`seen_on`, 'desc');
  const rows = (await rowsQ.orderBy('p.name').limit(page.limit).offset(page.offset).execute()) as Array<
    PropertyRow & { seen_on?: unknown }
  >;
  return {
    count: Number(n),
    results: rows.map((r) => ({ ...toProperty(r), seenOnEvents: rank ? bool(r.seen_on) : null })),
  };
}

export async function findPropertyDefinition(
  db: MetaDb,
  teamId: number,
  id: string,
): Promise<PropertyDefinitionRecord | undefined> {
  const row = await db
    .selectFrom('property_definitions')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toProperty(row);
}

export async function updatePropertyDefinition(
  db: MetaDb,
  id: string,
  set: {
    description?: string | null;
    tags?: string[];
    verified?: boolean;
    hidden?: boolean;
    propertyType?: string | null;
  },
  now: string,
): Promise<void> {
  await db
    .updateTable('property_definitions')
    .set({
      ...describedSet(set, now),
      ...(set.propertyType !== undefined
        ? { property_type: set.propertyType, is_numerical: set.propertyType === 'Numeric' }
        : {}),
    })
    .where('id', '=', id)
    .execute();
}

export async function deletePropertyDefinition(db: MetaDb, teamId: number, id: string): Promise<void> {
  await db.deleteFrom('property_definitions').where('team_id', '=', teamId).where('id', '=', id).execute();
}

/** Typed (non-String) property definitions of a team, for the HogQL compiler. */
export async function typedPropertyDefinitions(
  db: MetaDb,
  teamId: number,
): Promise<Array<{ name: string; type: number; groupTypeIndex: number; propertyType: string }>> {
  const rows = await db
    .selectFrom('property_definitions')
    .select(['name', 'type', 'group_type_index', 'property_type'])
    .where('team_id', '=', teamId)
    .where('property_type', 'is not', null)
    .where('property_type', '!=', 'String')
    .execute();
  return rows.map((r) => ({
    name: r.name,
    type: r.type,
    groupTypeIndex: r.group_type_index,
    propertyType: r.property_type as string,
  }));
}
