import type { Selectable } from 'kysely';
import type { BatchExportBackfillsTable } from './batch-export-tables.js';
import { bool, iso, isoOrNull } from './codec.js';
import type { MetaDb } from './db.js';

export interface BackfillRecord {
  id: string;
  teamId: number;
  batchExportId: string;
  workflowId: string;
  startAt: string | null;
  endAt: string | null;
  status: string;
  /** Start of the next window to create a run for. */
  nextWindowStart: string;
  /** Where the last window ends (`end_at`, or the time of the request when there was none). */
  windowEnd: string;
  totalRuns: number;
  /** Re-export windows the schedule already delivered (a run's retry); else leave them to it. */
  rerun: boolean;
  createdAt: string;
  finishedAt: string | null;
  lastUpdatedAt: string;
}

export function toBackfillRecord(row: Selectable<BatchExportBackfillsTable>): BackfillRecord {
  return {
    id: row.id,
    teamId: row.team_id,
    batchExportId: row.batch_export_id,
    workflowId: row.workflow_id,
    startAt: isoOrNull(row.start_at),
    endAt: isoOrNull(row.end_at),
    status: row.status,
    nextWindowStart: iso(row.next_window_start),
    windowEnd: iso(row.window_end),
    totalRuns: row.total_runs,
    rerun: bool(row.rerun),
    createdAt: iso(row.created_at),
    finishedAt: isoOrNull(row.finished_at),
    lastUpdatedAt: iso(row.last_updated_at),
  };
}

export async function insertBackfill(db: MetaDb, b: BackfillRecord): Promise<void> {
  await db
    .insertInto('batch_export_backfills')
    .values({
      id: b.id,
      team_id: b.teamId,
      batch_export_id: b.batchExportId,
      workflow_id: b.workflowId,
      start_at: b.startAt,
      end_at: b.endAt,
      status: b.status,
      next_window_start: b.nextWindowStart,
      window_end: b.windowEnd,
      total_runs: b.totalRuns,
      rerun: b.rerun,
      created_at: b.createdAt,
      finished_at: b.finishedAt,
      last_updated_at: b.lastUpdatedAt,
    })
    .execute();
}

export async function findBackfill(db: MetaDb, exportId: string, id: string) {
  const row = await db
    .selectFrom('batch_export_backfills')
    .selectAll()
    .where('batch_export_id', '=', exportId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toBackfillRecord(row);
}

/** Backfills still in progress whose export may run. */
export async function listOpenBackfills(db: MetaDb): Promise<BackfillRecord[]> {
  const rows = await db
    .selectFrom('batch_export_backfills as b')
    .innerJoin('batch_exports as e', 'e.id', 'b.batch_export_id')
    .selectAll('b')
    .where('b.status', 'in', ['Starting', 'Running'])
    .where('e.paused', '=', false)
    .where('e.deleted', '=', false)
    .orderBy('b.created_at')
    .execute();
  return rows.map(toBackfillRecord);
}

export async function advanceBackfillCursor(db: MetaDb, id: string, from: string, to: string, now: string) {
  const result = await db
    .updateTable('batch_export_backfills')
    .set({ next_window_start: to, status: 'Running', last_updated_at: now })
    .where('id', '=', id)
    .where('next_window_start', '=', from)
    .where('status', 'in', ['Starting', 'Running'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Moves a backfill out of Starting/Running; false when it already left them. */
export async function finishBackfill(db: MetaDb, id: string, status: string, now: string) {
  const result = await db
    .updateTable('batch_export_backfills')
    .set({ status, finished_at: now, last_updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', ['Starting', 'Running'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function cancelExportBackfills(db: MetaDb, exportId: string, now: string) {
  await db
    .updateTable('batch_export_backfills')
    .set({ status: 'Cancelled', finished_at: now, last_updated_at: now })
    .where('batch_export_id', '=', exportId)
    .where('status', 'in', ['Starting', 'Running'])
    .execute();
}

/** Runs of a backfill by status, to decide whether it is done and to report progress. */
export async function backfillRunCounts(db: MetaDb, backfillIds: string[]) {
  if (backfillIds.length === 0) return new Map<string, Record<string, number>>();
  const rows = await db
    .selectFrom('batch_export_runs')
    .select(['backfill_id', 'status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('backfill_id', 'in', backfillIds)
    .groupBy(['backfill_id', 'status'])
    .execute();
  const out = new Map<string, Record<string, number>>();
  for (const row of rows) {
    const counts = out.get(row.backfill_id as string) ?? {};
    counts[row.status] = Number(row.n);
    out.set(row.backfill_id as string, counts);
  }
  return out;
}
