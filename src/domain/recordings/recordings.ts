import { notFound } from '../../errors.js';
import { scopedEvents } from '../../store/events/scoped.js';
import { personsByDistinctIds, type RecordingPerson } from '../../store/meta/recording-persons.js';
import {
  deletedRecordingIds,
  markRecordingDeleted,
  otherViewers,
  saveRecordingView,
  viewedBy,
} from '../../store/meta/recording-state.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import type { Principal } from '../principal.js';
import type { RecordingQuery } from './filter-types.js';
import { type RecordingRow, recordingsByIds, searchSessionIds } from './query.js';
import { deleteRecordingData } from './query-snapshots.js';
import { toSearch } from './search.js';

/** A recording is still coming in while snapshots arrived within this long. */
const ONGOING_MS = 5 * 60_000;

export interface Recording extends RecordingRow {
  viewed: boolean;
  viewers: string[];
  person: RecordingPerson | null;
  ongoing: boolean;
}

export const recordingNotFound = () => notFound('Recording not found');

const chTime = (value: string) => Date.parse(`${value.replace(' ', 'T')}Z`);

/** Adds what the metadata store knows: the caller's views, other viewers, the person. */
async function enrich(deps: Deps, teamId: number, principal: Principal, rows: RecordingRow[]) {
  const ids = rows.map((r) => r.session_id);
  const [viewed, viewers, persons] = await Promise.all([
    viewedBy(deps.meta, teamId, principal.user.id, ids),
    otherViewers(deps.meta, teamId, principal.user.id, ids),
    personsByDistinctIds(
      deps.meta,
      teamId,
      rows.map((r) => r.distinct_id),
    ),
  ]);
  const now = deps.now().getTime();
  return rows.map(
    (r): Recording => ({
      ...r,
      viewed: viewed.has(r.session_id),
      viewers: viewers.get(r.session_id) ?? [],
      person: persons.get(r.distinct_id) ?? null,
      ongoing: now - chTime(r.last_seen) < ONGOING_MS,
    }),
  );
}

/** One page of recordings matching a query; `hasNext` says whether another page follows. */
export async function listRecordings(
  deps: Deps,
  access: ProjectAccess,
  principal: Principal,
  query: RecordingQuery,
  page: { limit: number; offset: number },
  options: { ignoreDates?: boolean } = {},
): Promise<{ results: Recording[]; hasNext: boolean }> {
  const search = await toSearch(
    deps,
    access.team,
    query,
    { limit: page.limit + 1, offset: page.offset },
    options,
  );
  const ids = await searchSessionIds(scopedEvents(deps.events, { teamId: access.team.id }), search);
  const rows = await recordingsByIds(
    scopedEvents(deps.events, { teamId: access.team.id }),
    access.team.id,
    ids.slice(0, page.limit),
  );
  return { results: await enrich(deps, access.team.id, principal, rows), hasNext: ids.length > page.limit };
}

async function findRow(deps: Deps, teamId: number, sessionId: string): Promise<RecordingRow | undefined> {
  if ((await deletedRecordingIds(deps.meta, teamId, [sessionId])).length > 0) return undefined;
  return (await recordingsByIds(scopedEvents(deps.events, { teamId }), teamId, [sessionId]))[0];
}

export async function getRecording(
  deps: Deps,
  access: ProjectAccess,
  principal: Principal,
  sessionId: string,
  saveView: boolean,
): Promise<Recording> {
  const row = await findRow(deps, access.team.id, sessionId);
  if (!row) throw recordingNotFound();
  if (saveView) {
    await saveRecordingView(
      deps.meta,
      access.team.id,
      principal.user.id,
      sessionId,
      deps.now().toISOString(),
    );
  }
  const [recording] = await enrich(deps, access.team.id, principal, [row]);
  return recording as Recording;
}

/** Throws 404 unless the recording exists and is not deleted. */
export async function requireRecording(deps: Deps, access: ProjectAccess, sessionId: string): Promise<void> {
  if (!(await findRow(deps, access.team.id, sessionId))) throw recordingNotFound();
}

/**
 * Deletes the recording's data and remembers the deletion, so that snapshots still in flight do
 * not bring it back. Data goes first: if that fails, nothing is marked and a retry works.
 */
export async function deleteRecording(deps: Deps, access: ProjectAccess, sessionId: string): Promise<void> {
  await requireRecording(deps, access, sessionId);
  await deleteRecordingData(deps.events, access.team.id, sessionId);
  await markRecordingDeleted(deps.meta, access.team.id, sessionId, deps.now().toISOString());
}
