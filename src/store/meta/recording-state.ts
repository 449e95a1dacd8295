import type { MetaDb } from './db.js';

/**
 * What the metadata store knows about recordings whose data lives in the events store: which were
 * deleted (so that late snapshots do not bring them back) and who has watched which.
 */
export async function markRecordingDeleted(
  db: MetaDb,
  teamId: number,
  sessionId: string,
  at: string,
): Promise<void> {
  await db
    .insertInto('session_recordings')
    .values({ team_id: teamId, session_id: sessionId, deleted: true, created_at: at })
    .onConflict((oc) => oc.columns(['team_id', 'session_id']).doUpdateSet({ deleted: true }))
    .execute();
}

/** Deleted session ids of a project, optionally only among `sessionIds`. */
export async function deletedRecordingIds(
  db: MetaDb,
  teamId: number,
  sessionIds?: string[],
): Promise<string[]> {
  if (sessionIds && sessionIds.length === 0) return [];
  let q = db
    .selectFrom('session_recordings')
    .select('session_id')
    .where('team_id', '=', teamId)
    .where('deleted', '=', true);
  if (sessionIds) q = q.where('session_id', 'in', sessionIds);
  return (await q.execute()).map((r) => r.session_id);
}

export async function saveRecordingView(
  db: MetaDb,
  teamId: number,
  userId: number,
  sessionId: string,
  at: string,
): Promise<void> {
  await db
    .insertInto('session_recording_views')
    .values({ team_id: teamId, user_id: userId, session_id: sessionId, created_at: at })
    .onConflict((oc) => oc.columns(['team_id', 'session_id', 'user_id']).doNothing())
    .execute();
}

/** Which of `sessionIds` the user has watched. */
export async function viewedBy(
  db: MetaDb,
  teamId: number,
  userId: number,
  sessionIds: string[],
): Promise<Set<string>> {
  if (sessionIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('session_recording_views')
    .select('session_id')
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .where('session_id', 'in', sessionIds)
    .execute();
  return new Set(rows.map((r) => r.session_id));
}

/** E-mail addresses of the other users who watched each recording. */
export async function otherViewers(
  db: MetaDb,
  teamId: number,
  userId: number,
  sessionIds: string[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (sessionIds.length === 0) return out;
  const rows = await db
    .selectFrom('session_recording_views as v')
    .innerJoin('users as u', 'u.id', 'v.user_id')
    .select(['v.session_id', 'u.email'])
    .where('v.team_id', '=', teamId)
    .where('v.user_id', '!=', userId)
    .where('v.session_id', 'in', sessionIds)
    .orderBy('u.email')
    .execute();
  for (const r of rows) out.set(r.session_id, [...(out.get(r.session_id) ?? []), r.email]);
  return out;
}
