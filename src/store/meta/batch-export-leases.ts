import type { MetaDb } from './db.js';

/**
 * Writes made by the node holding a run's lease. Each is conditional on the lease still being
 * this node's and the run still `Running`: a cancelled run, or one taken over after this node
 * stalled past its lease, is never overwritten by the late writer.
 */
export interface RunProgress {
  recordsCompleted?: number;
  recordsTotalCount?: number | null;
  bytesExported?: number;
  cursor?: string | null;
}

function progressColumns(p: RunProgress) {
  return {
    records_completed: p.recordsCompleted,
    records_total_count: p.recordsTotalCount,
    bytes_exported: p.bytesExported,
    cursor: p.cursor,
  };
}

function owned(db: MetaDb, id: string, owner: string) {
  return db
    .updateTable('batch_export_runs')
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'Running');
}

/** Extends the lease and records progress; false when the lease is no longer ours. */
export async function renewLease(
  db: MetaDb,
  id: string,
  owner: string,
  until: string,
  now: string,
  progress: RunProgress = {},
): Promise<boolean> {
  const result = await owned(db, id, owner)
    .set({ lease_expires_at: until, last_updated_at: now, ...progressColumns(progress) })
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface RunOutcome extends RunProgress {
  status: string;
  attempt?: number;
  latestError?: string | null;
  nextAttemptAt?: string;
  finishedAt?: string | null;
}

/** Ends this node's hold on a run with its outcome; false when the lease was lost meanwhile. */
export async function settleRun(
  db: MetaDb,
  id: string,
  owner: string,
  now: string,
  outcome: RunOutcome,
): Promise<boolean> {
  const result = await owned(db, id, owner)
    .set({
      ...progressColumns(outcome),
      status: outcome.status,
      attempt: outcome.attempt,
      latest_error: outcome.latestError,
      next_attempt_at: outcome.nextAttemptAt,
      finished_at: outcome.finishedAt,
      lease_owner: null,
      lease_expires_at: null,
      last_updated_at: now,
    })
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Cancels the unfinished runs of an export (or of one backfill, or one run). */
export async function cancelRuns(
  db: MetaDb,
  where: { batchExportId: string; backfillId?: string; runId?: string },
  now: string,
): Promise<number> {
  let q = db
    .updateTable('batch_export_runs')
    .set({
      status: 'Cancelled',
      finished_at: now,
      last_updated_at: now,
      lease_owner: null,
      lease_expires_at: null,
    })
    .where('batch_export_id', '=', where.batchExportId)
    .where('status', 'in', ['Starting', 'Running', 'FailedRetryable']);
  if (where.backfillId) q = q.where('backfill_id', '=', where.backfillId);
  if (where.runId) q = q.where('id', '=', where.runId);
  const result = await q.executeTakeFirst();
  return Number(result.numUpdatedRows);
}
