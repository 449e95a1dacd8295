import type { EventsStore } from '../../store/events/store.js';

/**
 * A recording's rrweb data, served as PostHog's snapshot sources. A block is the stored batches of
 * one ten-minute slice of the recording. `blob_v2` sources name blocks by their index in time order
 * (PostHog's block list); the older `blob` key `<first ms>-<last ms>` says which batches it holds.
 * Either way no state is kept between the listing and the reads.
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

/**
 * The blocks `first`..`last` of `sources` as PostHog's blob_v2 lines, `[window_id, rrweb event]`,
 * one array of lines per block. The engine splits the stored arrays into events, so no rrweb data
 * is parsed here.
 */
export async function snapshotBlockLines(
  store: EventsStore,
  teamId: number,
  sessionId: string,
  blocks: readonly SnapshotSource[],
): Promise<string[][]> {
  const first = blocks[0];
  const last = blocks[blocks.length - 1];
  if (!first || !last) return [];
  const rows = await store.query<{ slice: number; line: string }>(
    `SELECT toInt64(intDiv(toUnixTimestamp64Milli(timestamp), {slice:Int64})) AS slice,
            concat('[', toJSONString(window_id), ',', event, ']') AS line
     FROM (
       SELECT timestamp, window_id, data FROM ${store.table('session_replay_snapshots')} FINAL
       WHERE team_id = {team:Int64} AND session_id = {session:String}
         AND toUnixTimestamp64Milli(timestamp) BETWEEN {start:Int64} AND {end:Int64}
     )
     ARRAY JOIN JSONExtractArrayRaw(data) AS event, arrayEnumerate(JSONExtractArrayRaw(data)) AS n
     ORDER BY timestamp, window_id, n`,
    {
      params: {
        team: teamId,
        session: sessionId,
        start: first.start,
        end: last.end,
        slice: SLICE_MS,
      },
    },
  );
  const slices = blocks.map((b) => Math.floor(b.start / SLICE_MS));
  const out: string[][] = blocks.map(() => []);
  // Rows come in time order; a batch that landed in a slice unlisted at the first call (late data)
  // joins the block before it rather than being dropped.
  let at = 0;
  for (const row of rows) {
    while (at + 1 < slices.length && (slices[at + 1] as number) <= row.slice) at++;
    out[at]?.push(row.line);
  }
  return out;
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
