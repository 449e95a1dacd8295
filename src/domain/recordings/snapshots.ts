import { notFound, validationError } from '../../errors.js';
import { scopedEvents } from '../../store/events/scoped.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import { snapshotBlob, snapshotSources } from './query-snapshots.js';
import { requireRecording } from './recordings.js';

export interface SnapshotSourceView {
  source: 'blob';
  start_timestamp: string;
  end_timestamp: string;
  blob_key: string;
}

export type SnapshotsAnswer =
  | { kind: 'sources'; sources: SnapshotSourceView[] }
  | { kind: 'blob'; body: string };

const BLOB_KEY = /^(\d{1,15})-(\d{1,15})$/;

/**
 * PostHog's two-step snapshot protocol: without `source`, the list of blobs; with
 * `source=blob&blob_key=…`, one blob's JSON lines. Everything Burrow stores is in the events
 * store, so there is no `realtime` source.
 */
export async function recordingSnapshots(
  deps: Deps,
  access: ProjectAccess,
  sessionId: string,
  query: { source?: string; blob_key?: string },
): Promise<SnapshotsAnswer> {
  await requireRecording(deps, access, sessionId);
  const teamId = access.team.id;
  if (query.source === undefined || query.source === '') {
    const sources = await snapshotSources(scopedEvents(deps.events, { teamId }), teamId, sessionId);
    return {
      kind: 'sources',
      sources: sources.map((s) => ({
        source: 'blob',
        start_timestamp: new Date(s.start).toISOString(),
        end_timestamp: new Date(s.end).toISOString(),
        blob_key: `${s.start}-${s.end}`,
      })),
    };
  }
  if (query.source !== 'blob') throw validationError('Invalid source must be one of [blob]');
  if (!query.blob_key) throw validationError('Must provide a snapshot file blob key');
  const key = BLOB_KEY.exec(query.blob_key);
  if (!key) throw notFound('Snapshot file not found');
  const body = await snapshotBlob(scopedEvents(deps.events, { teamId }), teamId, sessionId, {
    start: Number(key[1]),
    end: Number(key[2]),
  });
  if (body === '') throw notFound('Snapshot file not found');
  return { kind: 'blob', body };
}
