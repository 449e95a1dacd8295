import type { ReplayEventRow, SnapshotRow } from '../../store/events/rows.js';
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
  return iso.replace('T', ' ').replace('Z', '').padEnd(26, '0').slice(0, 26);
}

const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

export function eventRow(teamId: number, e: CaptureEvent, p: PersonEnrichment, now: string) {
  const props = e.properties;
  return {
    uuid: e.uuid,
    event: e.event,
    properties: JSON.stringify(props),
    timestamp: chTime(e.timestamp),
    team_id: teamId,
    distinct_id: e.distinctId,
    elements_chain: str(props.$elements_chain),
    created_at: chTime(now),
    $session_id: str(props.$session_id),
    $window_id: str(props.$window_id),
    person_id: p.personId,
    person_properties: JSON.stringify(p.personProperties),
    person_created_at: chTime(p.personCreatedAt).slice(0, 23),
    $group_0: p.groups[0],
    $group_1: p.groups[1],
    $group_2: p.groups[2],
    $group_3: p.groups[3],
    $group_4: p.groups[4],
    inserted_at: chTime(now),
  };
}

export type EventRow = ReturnType<typeof eventRow>;

const personRow = (p: PersonRecord & { isDeleted: boolean }) => ({
  id: p.id,
  team_id: p.teamId,
  properties: JSON.stringify(p.properties),
  is_identified: p.isIdentified ? 1 : 0,
  created_at: chTime(p.createdAt),
  version: p.version,
  is_deleted: p.isDeleted ? 1 : 0,
});

const groupRow = (g: GroupRecord) => ({
  team_id: g.teamId,
  group_type_index: g.groupTypeIndex,
  group_key: g.groupKey,
  group_properties: JSON.stringify(g.properties),
  created_at: chTime(g.createdAt),
  version: g.version,
});

/** Rows for every events-store table one request writes. */
export interface WriteSet {
  events: EventRow[];
  person: ReturnType<typeof personRow>[];
  person_distinct_id2: Array<{
    team_id: number;
    distinct_id: string;
    person_id: string;
    version: number;
    is_deleted: number;
  }>;
  groups: ReturnType<typeof groupRow>[];
  replay: ReplayEventRow[];
  snapshots: SnapshotRow[];
}

export function writeSet(
  events: EventRow[],
  changes: PersonChanges,
  replay: { summaries: ReplayEventRow[]; snapshots: SnapshotRow[] },
): WriteSet {
  return {
    events,
    replay: replay.summaries,
    snapshots: replay.snapshots,
    person: [...changes.persons.values()].map(personRow),
    person_distinct_id2: changes.distinctIds.map((d) => ({
      team_id: d.teamId,
      distinct_id: d.distinctId,
      person_id: d.personId,
      version: d.version,
      is_deleted: d.isDeleted ? 1 : 0,
    })),
    groups: [...changes.groups.values()].map(groupRow),
  };
}

export const rowsIn = (w: WriteSet) =>
  w.events.length +
  w.person.length +
  w.person_distinct_id2.length +
  w.groups.length +
  w.replay.length +
  w.snapshots.length;
