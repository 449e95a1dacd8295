import type { LogRow, ReplayEventRow, SnapshotRow } from '../../store/events/rows.js';
import type { GroupRecord, PersonRecord } from '../../store/meta/persons.js';
import type { PersonChanges, PersonEnrichment } from './persons.js';

/** An event after decoding and normalisation, ready for person processing. */
export interface CaptureEvent {
  uuid: string;
  event: string;
  distinctId: string;
  properties: Record<string, unknown>;
  /** ISO 8601, already corrected for client clock skew. */
  timestamp: string;
}

/** ClickHouse DateTime64 text in UTC; both chDB and a server parse it in JSONEachRow. */
export function chTime(iso: string): string {
  // The common case, `Date.toISOString()` output: 'YYYY-MM-DDTHH:MM:SS.mmmZ'.
  if (iso.length === 24 && iso.charCodeAt(23) === 90 /* Z */ && iso.charCodeAt(10) === 84 /* T */) {
    return `${iso.slice(0, 10)} ${iso.slice(11, 23)}000`;
  }
  return iso.replace('T', ' ').replace('Z', '').padEnd(26, '0').slice(0, 26);
}

/** An event without `$groups`: shared, never changed. */
export const NO_GROUPS: PersonEnrichment['groups'] = Object.freeze(['', '', '', '', '']) as never;

const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

/**
 * An event's `events` row, encoded as one JSONEachRow line at once (before the request's next
 * await, so `p.personProperties` may be the live person object; from the cache it comes as
 * `p.personPropertiesJson`, text taken once per person version). `properties` and
 * `person_properties` go in as JSON objects, which the engine stores in their String columns as
 * their exact text (`input_format_json_read_objects_as_strings`, set on every encoded insert):
 * the same text as `JSON.stringify` of them, without escaping it a second time as a string.
 * `now` is already `chTime` text.
 */
export function eventLine(teamId: number, e: CaptureEvent, p: PersonEnrichment, now: string): string {
  const props = e.properties;
  // Written out by hand: a row object for JSON.stringify cost a third more. Only free text goes
  // through JSON.stringify; uuids, numbers and `chTime` text need no escaping. Empty strings are
  // left out (the columns default to '').
  let line =
    `{"uuid":"${e.uuid}","event":${JSON.stringify(e.event)},"properties":${JSON.stringify(props)}` +
    `,"timestamp":"${chTime(e.timestamp)}","team_id":${teamId},"distinct_id":${JSON.stringify(e.distinctId)}` +
    `,"created_at":"${now}","inserted_at":"${now}","person_id":"${p.personId}"` +
    `,"person_properties":${p.personPropertiesJson ?? JSON.stringify(p.personProperties)}` +
    `,"person_created_at":"${chTime(p.personCreatedAt).slice(0, 23)}"`;
  // Spelled out, not a list of pairs: the list was nine allocations per event.
  const elements = str(props.$elements_chain);
  if (elements !== '') line += `,"elements_chain":${JSON.stringify(elements)}`;
  const session = str(props.$session_id);
  if (session !== '') line += `,"$session_id":${JSON.stringify(session)}`;
  const window = str(props.$window_id);
  if (window !== '') line += `,"$window_id":${JSON.stringify(window)}`;
  const groups = p.groups;
  if (groups !== NO_GROUPS) {
    for (let i = 0; i < 5; i++) {
      const key = groups[i] as string;
      if (key !== '') line += `,"$group_${i}":${JSON.stringify(key)}`;
    }
  }
  return `${line}}\n`;
}

/** A person's `person` row (every change is a new row with a higher version). */
export const personRow = (p: PersonRecord & { isDeleted: boolean }) => ({
  id: p.id,
  team_id: p.teamId,
  properties: JSON.stringify(p.properties),
  is_identified: p.isIdentified ? 1 : 0,
  created_at: chTime(p.createdAt),
  version: p.version,
  is_deleted: p.isDeleted ? 1 : 0,
});

/** A distinct id's `person_distinct_id2` row: its latest version says which person it is. */
export const distinctIdRow = (d: PersonChanges['distinctIds'][number]) => ({
  team_id: d.teamId,
  distinct_id: d.distinctId,
  person_id: d.personId,
  version: d.version,
  is_deleted: d.isDeleted ? 1 : 0,
});

/** A group's `groups` row: the latest version per (team, type index, key) wins. */
export const groupRow = (g: GroupRecord) => ({
  team_id: g.teamId,
  group_type_index: g.groupTypeIndex,
  group_key: g.groupKey,
  group_properties: JSON.stringify(g.properties),
  created_at: chTime(g.createdAt),
  version: g.version,
});

/**
 * Rows for every events-store table one request writes. Events are already encoded: the
 * request's `eventLine`s in one Buffer, outside the JS heap, so that rows waiting for their group
 * commit are not thousands of strings for the garbage collector to trace and move.
 */
export interface WriteSet {
  events: Buffer;
  eventCount: number;
  person: ReturnType<typeof personRow>[];
  person_distinct_id2: ReturnType<typeof distinctIdRow>[];
  groups: ReturnType<typeof groupRow>[];
  replay: ReplayEventRow[];
  snapshots: SnapshotRow[];
  /** OpenTelemetry log records (`/i/v1/logs`); no person work, written like the rest. */
  logs?: LogRow[];
  /**
   * The events of `events`, one per line and in order, as capture holds them: the realtime
   * destinations' matcher reads their names and properties without reading the lines back.
   */
  captured?: CaptureEvent[];
}

/** `events`: the request's `eventLine`s, already one Buffer (`joinInSlices`). */
export function writeSet(
  events: Buffer,
  eventCount: number,
  changes: PersonChanges,
  replay: { summaries: ReplayEventRow[]; snapshots: SnapshotRow[] },
): WriteSet {
  return {
    events,
    eventCount,
    replay: replay.summaries,
    snapshots: replay.snapshots,
    person: [...changes.persons.values()].map(personRow),
    person_distinct_id2: changes.distinctIds.map(distinctIdRow),
    groups: [...changes.groups.values()].map(groupRow),
  };
}

export const rowsIn = (w: WriteSet) =>
  w.eventCount +
  w.person.length +
  w.person_distinct_id2.length +
  w.groups.length +
  w.replay.length +
  w.snapshots.length +
  (w.logs?.length ?? 0);
