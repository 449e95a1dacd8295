import type { EventsStore } from '../../store/events/store.js';

/**
 * A recording's rrweb data, served as PostHog's snapshot "blob" sources. A blob is the stored
 * batches of one ten-minute slice of the recording; its key `<first ms>-<last ms>` says which
 * batches it holds, so no state is needed between the two calls.
 */
const SLICE_MS = 600_000;

export interface SnapshotSource {
  start: number;
  end: number;
}

export async function snapshotSources(
  store: EventsStore,
  teamId: number,
  sessionId: string,
): Promise<SnapshotSource[]> {
  return store.query<SnapshotSource>(
    `SELECT toInt64(min(toUnixTimestamp64Milli(timestamp))) AS start, toInt64(max(toUnixTimestamp64Milli(timestamp))) AS end
     FROM ${store.table('session_replay_snapshots')}
     WHERE team_id = {team:Int64} AND session_id = {session:String}
     GROUP BY intDiv(toUnixTimestamp64Milli(timestamp), {slice:Int64})
     ORDER BY start`,
    { params: { team: teamId, session: sessionId, slice: SLICE_MS } },
  );
}

/** One blob as JSON lines `{"window_id", "data": [rrweb events]}`, in time order. */
export async function snapshotBlob(
  store: EventsStore,
  teamId: number,
  sessionId: string,
  range: SnapshotSource,
): Promise<string> {
  const rows = await store.query<{ window_id: string; data: string }>(
    `SELECT window_id, data FROM ${store.table('session_replay_snapshots')} FINAL
     WHERE team_id = {team:Int64} AND session_id = {session:String}
       AND toUnixTimestamp64Milli(timestamp) BETWEEN {start:Int64} AND {end:Int64}
     ORDER BY timestamp, window_id`,
    // One slice of one recording, read whole as before: the answer bound is for queries users write.
    { params: { team: teamId, session: sessionId, start: range.start, end: range.end }, maxResultBytes: 0 },
  );
  // `data` is the JSON text ingestion wrote; it is spliced in rather than parsed and re-encoded.
  return rows.map((r) => `{"window_id":${JSON.stringify(r.window_id)},"data":${r.data}}`).join('\n');
}

/** Removes a recording's data for good (lightweight deletes; merges reclaim the space). */
export async function deleteRecordingData(
  store: EventsStore,
  teamId: number,
  sessionId: string,
): Promise<void> {
  for (const table of ['session_replay_snapshots', 'session_replay_events']) {
    await store.command(
      `DELETE FROM ${store.table(table)} WHERE team_id = {team:Int64} AND session_id = {session:String}`,
      { params: { team: teamId, session: sessionId } },
    );
  }
}
