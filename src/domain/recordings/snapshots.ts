import { notFound, validationError } from '../../errors.js';
import { scopedEvents } from '../../store/events/scoped.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import { snapshotBlob, snapshotBlockLines, snapshotSources } from './query-snapshots.js';
import { requireRecording } from './recordings.js';
import { lengthPrefixedSnappy } from './snappy.js';

export interface SnapshotSourceView {
  source: 'blob_v2';
  start_timestamp: string;
  end_timestamp: string;
  blob_key: string;
}

export interface SnapshotsQuery {
  source?: string;
  blob_key?: string;
  start_blob_key?: string;
  end_blob_key?: string;
  decompress?: string;
}

export type SnapshotsAnswer =
  | { kind: 'sources'; sources: SnapshotSourceView[] }
  /** `blob` (Burrow's earlier source): JSON lines `{"window_id", "data": [...]}`. */
  | { kind: 'blob'; body: string }
  /** `blob_v2`: JSONL text, or length-prefixed Snappy blocks; `closed` when no batch can still join. */
  | { kind: 'jsonl' | 'snappy'; body: Buffer; closed: boolean };

const BLOB_KEY = /^(\d{1,15})-(\d{1,15})$/;
const BLOCK_INDEX = /^\d{1,9}$/;
/** PostHog's cap on blocks per request: 20 with a personal API key, 100 in the app. */
export const MAX_BLOCKS_PER_REQUEST = { key: 20, session: 100 };
/** A block whose ten minutes ended this long ago is not expected to change (it may be cached). */
const SETTLED_MS = 3_600_000;
const TRUE = new Set(['true', 't', 'yes', 'y', 'on', '1']);
const FALSE = new Set(['false', 'f', 'no', 'n', 'off', '0']);

/**
 * PostHog's two-step snapshot protocol: without `source`, the list of `blob_v2` blocks; with
 * `source=blob_v2&start_blob_key=i&end_blob_key=j`, blocks i..j as JSONL `[window_id, event]`
 * (or, with `decompress=false`, as length-prefixed Snappy blocks). Everything Burrow stores is in
 * the events store, so there is no `realtime` source and no `blob_v2_lts`. `source=blob` with a
 * `<first ms>-<last ms>` key is still answered for clients of Burrow's earlier listing.
 */
export async function recordingSnapshots(
  deps: Deps,
  access: ProjectAccess,
  sessionId: string,
  query: SnapshotsQuery,
  viaPersonalKey: boolean,
): Promise<SnapshotsAnswer> {
  await requireRecording(deps, access, sessionId);
  const request = checkQuery(query, viaPersonalKey);
  const teamId = access.team.id;
  const store = scopedEvents(deps.events, { teamId });
  if (request.kind === 'list') {
    const sources = await snapshotSources(store, teamId, sessionId);
    return {
      kind: 'sources',
      sources: sources.map((s, i) => ({
        source: 'blob_v2',
        start_timestamp: new Date(s.start).toISOString(),
        end_timestamp: new Date(s.end).toISOString(),
        blob_key: String(i),
      })),
    };
  }
  if (request.kind === 'lts') throw notFound('Recording not found');
  if (request.kind === 'blob') {
    const body = await snapshotBlob(store, teamId, sessionId, request.range);
    if (body === '') throw notFound('Snapshot file not found');
    return { kind: 'blob', body };
  }
  const sources = await snapshotSources(store, teamId, sessionId);
  if (sources.length === 0) throw notFound('Session recording not found');
  if (request.last >= sources.length) throw notFound('Block index out of range');
  const wanted = sources.slice(request.first, request.last + 1);
  const blocks = await snapshotBlockLines(store, teamId, sessionId, wanted);
  const lastEnd = wanted[wanted.length - 1]?.end ?? 0;
  const closed = deps.now().getTime() - lastEnd > SETTLED_MS;
  if (!request.decompress) {
    return { kind: 'snappy', body: lengthPrefixedSnappy(blocks.map(jsonlBlock)), closed };
  }
  return { kind: 'jsonl', body: Buffer.from(blocks.flat().join('\n')), closed };
}

/** A block's text as PostHog stores it: every line ends with a newline. */
const jsonlBlock = (lines: string[]) => (lines.length ? `${lines.join('\n')}\n` : '');

type SnapshotsRequest =
  | { kind: 'list' }
  | { kind: 'lts' }
  | { kind: 'blob'; range: { start: number; end: number } }
  | { kind: 'blocks'; first: number; last: number; decompress: boolean };

/** PostHog's checks of the snapshot query (its request serializer), in its order and words. */
function checkQuery(query: SnapshotsQuery, viaPersonalKey: boolean): SnapshotsRequest {
  const decompress = readBoolean(query.decompress, 'decompress', true);
  const source = query.source;
  if (source === undefined || source === '') return { kind: 'list' };
  if (source === 'blob_v2') {
    if (!query.start_blob_key || !query.end_blob_key)
      throw validationError('Must provide both start blob key and end blob key');
    if (!BLOCK_INDEX.test(query.start_blob_key) || !BLOCK_INDEX.test(query.end_blob_key))
      throw validationError('Blob keys must be integers');
    const first = Number(query.start_blob_key);
    const last = Number(query.end_blob_key);
    const max = viaPersonalKey ? MAX_BLOCKS_PER_REQUEST.key : MAX_BLOCKS_PER_REQUEST.session;
    if (last - first > max) throw validationError(`Cannot request more than ${max} blob keys at once`);
    if (first > last)
      throw validationError('start_blob_key must not be greater than end_blob_key', 'start_blob_key');
    return { kind: 'blocks', first, last, decompress };
  }
  if (source === 'blob_v2_lts') {
    if (!query.blob_key) throw validationError('Must provide a blob key');
    return { kind: 'lts' };
  }
  if (source === 'blob') {
    if (!query.blob_key) throw validationError('Must provide a snapshot file blob key');
    const key = BLOB_KEY.exec(query.blob_key);
    if (!key) throw notFound('Snapshot file not found');
    return { kind: 'blob', range: { start: Number(key[1]), end: Number(key[2]) } };
  }
  throw validationError('Invalid source must be one of [blob_v2, blob_v2_lts, blob]', 'source');
}

/** DRF's BooleanField spellings. */
function readBoolean(value: string | undefined, attr: string, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  const v = value.toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw validationError('Must be a valid boolean.', attr, 'invalid');
}
