import type { DistinctIdRow, EventRow, GroupRow, PersonRow, ReplayEventRow, SnapshotRow } from './rows.js';
import type { EventsStore } from './store.js';

/** chDB writes ~100k-row JSONEachRow batches fastest; a 1M-row batch is slower and needs GBs. */
export const INSERT_BATCH_ROWS = 100_000;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * A time as the analytics tables store it: UTC, 'YYYY-MM-DD HH:MM:SS.ffffff'. `micros` (0-999)
 * adds sub-millisecond precision, which a JS Date lacks. Throws on an invalid date.
 */
export function formatTimestamp(value: Date | number, micros = 0): string {
  const d = typeof value === 'number' ? new Date(value) : value;
  if (Number.isNaN(d.getTime())) throw new RangeError('invalid date');
  const year = d.getUTCFullYear();
  if (year < 1900 || year > 2299) throw new RangeError(`timestamp out of range: ${year}`);
  return (
    `${year}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.` +
    `${pad(d.getUTCMilliseconds(), 3)}${pad(Math.trunc(micros), 3)}`
  );
}

async function insertBatched(store: EventsStore, table: string, rows: readonly object[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_BATCH_ROWS) {
    await store.insert(table, rows.slice(i, i + INSERT_BATCH_ROWS));
  }
}

/**
 * Events. A retried event (same uuid, team, day, event name and distinct id) collapses into one
 * row; queries read `events FINAL` to count it once before the engine merges.
 */
export function insertEvents(store: EventsStore, rows: readonly EventRow[]): Promise<void> {
  return insertBatched(store, 'events', rows);
}

export function insertPersons(store: EventsStore, rows: readonly PersonRow[]): Promise<void> {
  return insertBatched(store, 'person', rows);
}

export function insertDistinctIds(store: EventsStore, rows: readonly DistinctIdRow[]): Promise<void> {
  return insertBatched(store, 'person_distinct_id2', rows);
}

export function insertGroups(store: EventsStore, rows: readonly GroupRow[]): Promise<void> {
  return insertBatched(store, 'groups', rows);
}

/** Recording summaries; the engine aggregates them per (team_id, session_id). */
export function insertReplayEvents(store: EventsStore, rows: readonly ReplayEventRow[]): Promise<void> {
  return insertBatched(store, 'session_replay_events_ingest', rows);
}

export function insertSnapshots(store: EventsStore, rows: readonly SnapshotRow[]): Promise<void> {
  return insertBatched(store, 'session_replay_snapshots', rows);
}
