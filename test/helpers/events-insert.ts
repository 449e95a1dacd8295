import type {
  DistinctIdRow,
  EventRow,
  GroupRow,
  PersonRow,
  ReplayEventRow,
  SnapshotRow,
} from '../../src/store/events/rows.js';
import type { EventsStore } from '../../src/store/events/store.js';

/**
 * Rows written straight to the analytics tables, for tests and benches that need data without
 * going through capture (the server writes through domain/ingest/ and its group commit).
 */

/** chDB writes ~100k-row JSONEachRow batches fastest; a 1M-row batch is slower and needs GBs. */
export const INSERT_BATCH_ROWS = 100_000;

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
