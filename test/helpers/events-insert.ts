import type { PersonEnrichment } from '../../src/domain/ingest/persons.js';
import { createWriter } from '../../src/domain/ingest/pipeline.js';
import {
  type CaptureEvent,
  chTime,
  distinctIdRow,
  eventLine,
  groupRow,
  personRow,
  type WriteSet,
} from '../../src/domain/ingest/rows.js';
import type { ReplayEventRow, SnapshotRow } from '../../src/store/events/rows.js';
import type { EventsStore } from '../../src/store/events/store.js';

/**
 * Rows written straight to the analytics tables, for tests and benches that need data without
 * going through capture's HTTP and person processing. Each row is encoded by the functions capture
 * encodes with (`eventLine`, `personRow`, `distinctIdRow`, `groupRow` in src/domain/ingest/rows.ts)
 * and written by capture's own writer, so a test row is stored exactly as a captured one would be.
 *
 * The row shapes below name the table columns (timestamps as 'YYYY-MM-DD HH:MM:SS.ffffff' UTC text,
 * JSON as text), which keeps fixtures short; what capture derives is derived here too.
 */

/**
 * An `events` row. `$session_id`, `$window_id` and `elements_chain` are not given: as in capture,
 * they are read from `properties` (`$session_id`, `$window_id`, `$elements_chain`).
 */
export interface EventRow {
  uuid: string;
  event: string;
  /** A JSON object, as text. */
  properties: string;
  timestamp: string;
  team_id: number;
  distinct_id: string;
  /** Default: the zero uuid (capture always has a person). */
  person_id?: string;
  /** A JSON object, as text. Default `{}`. */
  person_properties?: string;
  /** Default 1970-01-01, the column's default. */
  person_created_at?: string;
  $group_0?: string;
  $group_1?: string;
  $group_2?: string;
  $group_3?: string;
  $group_4?: string;
  /**
   * When the row was written (capture's `now`: both `created_at` and `inserted_at`, which is also
   * the version of a retried event: the latest insert wins when rows collapse). Default: now.
   */
  inserted_at?: string;
}

/** A `person` row: every change is a new row with a higher `version`; deletion sets `is_deleted`. */
export interface PersonRow {
  id: string;
  team_id: number;
  properties: string;
  is_identified: 0 | 1;
  created_at: string;
  version: number;
  is_deleted?: 0 | 1;
}

/** A `person_distinct_id2` row: the latest `version` of a distinct id says which person it is. */
export interface DistinctIdRow {
  team_id: number;
  distinct_id: string;
  person_id: string;
  version: number;
  is_deleted?: 0 | 1;
}

/** A `groups` row: latest `version` per (team, type index, key) wins. */
export interface GroupRow {
  team_id: number;
  group_type_index: number;
  group_key: string;
  group_properties: string;
  created_at: string;
  version: number;
}

/** chDB writes ~100k-row JSONEachRow batches fastest; a 1M-row batch is slower and needs GBs. */
export const INSERT_BATCH_ROWS = 100_000;

const ZERO_UUID = '00000000-0000-0000-0000-000000000000';
const EPOCH = '1970-01-01 00:00:00.000';

const emptySet = (): WriteSet => ({
  events: Buffer.alloc(0),
  eventCount: 0,
  person: [],
  person_distinct_id2: [],
  groups: [],
  replay: [],
  snapshots: [],
});

/** Writes `rows` in batches, each batch as the one write set `part` makes of it. */
async function writeBatched<T>(
  store: EventsStore,
  rows: readonly T[],
  part: (batch: readonly T[]) => Partial<WriteSet>,
): Promise<void> {
  const write = createWriter(store);
  for (let i = 0; i < rows.length; i += INSERT_BATCH_ROWS) {
    await write([{ ...emptySet(), ...part(rows.slice(i, i + INSERT_BATCH_ROWS)) }]);
  }
}

/** The event and person columns capture would have had for this row. */
function encodeEvent(row: EventRow, now: string): string {
  const event: CaptureEvent = {
    uuid: row.uuid,
    event: row.event,
    distinctId: row.distinct_id,
    properties: JSON.parse(row.properties),
    timestamp: row.timestamp,
  };
  const person: PersonEnrichment = {
    personId: row.person_id ?? ZERO_UUID,
    personProperties: JSON.parse(row.person_properties ?? '{}'),
    personCreatedAt: row.person_created_at ?? EPOCH,
    groups: [
      row.$group_0 ?? '',
      row.$group_1 ?? '',
      row.$group_2 ?? '',
      row.$group_3 ?? '',
      row.$group_4 ?? '',
    ],
  };
  return eventLine(row.team_id, event, person, row.inserted_at ? chTime(row.inserted_at) : now);
}

/**
 * Events. A retried event (same uuid, team, day, event name and distinct id) collapses into one
 * row; queries read `events FINAL` to count it once before the engine merges.
 */
export function insertEvents(store: EventsStore, rows: readonly EventRow[]): Promise<void> {
  const now = chTime(new Date().toISOString());
  return writeBatched(store, rows, (batch) => ({
    events: Buffer.from(batch.map((row) => encodeEvent(row, now)).join('')),
    eventCount: batch.length,
  }));
}

export function insertPersons(store: EventsStore, rows: readonly PersonRow[]): Promise<void> {
  return writeBatched(store, rows, (batch) => ({
    person: batch.map((p) =>
      personRow({
        id: p.id,
        teamId: p.team_id,
        properties: JSON.parse(p.properties),
        isIdentified: p.is_identified === 1,
        createdAt: p.created_at,
        version: p.version,
        isDeleted: p.is_deleted === 1,
      }),
    ),
  }));
}

export function insertDistinctIds(store: EventsStore, rows: readonly DistinctIdRow[]): Promise<void> {
  return writeBatched(store, rows, (batch) => ({
    person_distinct_id2: batch.map((d) =>
      distinctIdRow({
        teamId: d.team_id,
        distinctId: d.distinct_id,
        personId: d.person_id,
        version: d.version,
        isDeleted: d.is_deleted === 1,
      }),
    ),
  }));
}

export function insertGroups(store: EventsStore, rows: readonly GroupRow[]): Promise<void> {
  return writeBatched(store, rows, (batch) => ({
    groups: batch.map((g) =>
      groupRow({
        teamId: g.team_id,
        groupTypeIndex: g.group_type_index,
        groupKey: g.group_key,
        properties: JSON.parse(g.group_properties),
        createdAt: g.created_at,
        version: g.version,
      }),
    ),
  }));
}

/**
 * Recording summaries, in the shape capture's summariser (src/domain/ingest/replay.ts) makes; the
 * engine aggregates them per (team_id, session_id).
 */
export function insertReplayEvents(store: EventsStore, rows: readonly ReplayEventRow[]): Promise<void> {
  return writeBatched(store, rows, (batch) => ({ replay: [...batch] }));
}

export function insertSnapshots(store: EventsStore, rows: readonly SnapshotRow[]): Promise<void> {
  return writeBatched(store, rows, (batch) => ({ snapshots: [...batch] }));
}
