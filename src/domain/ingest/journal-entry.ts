import type { WriteSet } from './rows.js';

/** Table for each part of a write set, in write order: persons before the events that name them. */
export const TABLES: ReadonlyArray<readonly [keyof WriteSet, string]> = [
  ['person', 'person'],
  ['person_distinct_id2', 'person_distinct_id2'],
  ['groups', 'groups'],
  ['events', 'events'],
  ['snapshots', 'session_replay_snapshots'],
  ['replay', 'session_replay_events_ingest'],
  ['logs', 'logs'],
];

/** Parts of a record written before `logs` was added: such records are still read. */
const LEGACY_PARTS = 6;

/**
 * Tables where inserting a row twice counts it twice. `events` rows are dropped by uuid when a
 * batch may already be in; the person and group tables keep the highest version of a row, so a
 * second copy changes nothing.
 */
export const COUNTED = new Set([
  'events',
  'session_replay_snapshots',
  'session_replay_events_ingest',
  'logs',
]);

/**
 * One request's write set as the engine takes it: every table's rows as JSONEachRow bytes (events
 * are already encoded by the request; the few person, group and recording rows are encoded here),
 * so that neither the journal nor its writer encodes a row again.
 */
export interface JournalEntry {
  /** By `TABLES` order. */
  parts: Buffer[];
  rows: number;
}

const EMPTY = Buffer.alloc(0);

function lines(rows: readonly object[] | undefined): Buffer {
  if (!rows || rows.length === 0) return EMPTY;
  let text = '';
  for (const row of rows) text += `${JSON.stringify(row)}\n`;
  return Buffer.from(text);
}

export function entryOf(set: WriteSet, rows: number): JournalEntry {
  return {
    parts: TABLES.map(([part]) =>
      part === 'events' ? set.events : lines(set[part] as object[] | undefined),
    ),
    rows,
  };
}

/** The payload's chunks: a header (row count, each part's length) then the parts as they are. */
export function encodeEntry(entry: JournalEntry): Buffer[] {
  const header = Buffer.allocUnsafe(4 * (1 + TABLES.length));
  header.writeUInt32LE(entry.rows, 0);
  for (let i = 0; i < entry.parts.length; i++)
    header.writeUInt32LE((entry.parts[i] as Buffer).length, 4 * (i + 1));
  return [header, ...entry.parts];
}

export function decodeEntry(payload: Buffer): JournalEntry {
  const rows = payload.readUInt32LE(0);
  // The layout whose lengths add up to the record: the current one, or one from before `logs`
  // (the two can never both fit, a longer header would need a negative length).
  for (const count of [TABLES.length, LEGACY_PARTS]) {
    const header = 4 * (1 + count);
    if (payload.length < header) continue;
    let total = header;
    for (let i = 0; i < count; i++) total += payload.readUInt32LE(4 * (i + 1));
    if (total !== payload.length) continue;
    let offset = header;
    const parts = TABLES.map((_, i) => {
      if (i >= count) return EMPTY;
      const length = payload.readUInt32LE(4 * (i + 1));
      const part = payload.subarray(offset, offset + length);
      offset += length;
      return part;
    });
    return { parts, rows };
  }
  throw new Error('A capture journal record matches no known layout.');
}

/** `(team_id, uuid)` of each encoded event line (`eventLine` writes the uuid first). */
export function eventKeys(body: Buffer): Array<{ start: number; end: number; team: number; uuid: string }> {
  const out: Array<{ start: number; end: number; team: number; uuid: string }> = [];
  let start = 0;
  while (start < body.length) {
    let end = body.indexOf(10, start);
    if (end < 0) end = body.length - 1;
    const line = body.toString('utf8', start, end);
    // Any line capture wrote parses; this runs only for batches replayed or retried.
    const row = JSON.parse(line) as { uuid: string; team_id: number };
    out.push({ start, end: end + 1, team: row.team_id, uuid: row.uuid });
    start = end + 1;
  }
  return out;
}
