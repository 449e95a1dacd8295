import { type Selectable, sql } from 'kysely';
import type { BatchExportRunsTable } from './batch-export-tables.js';
import { iso, isoOrNull } from './codec.js';
import type { MetaDb } from './db.js';
import { dialectOf } from './dialect.js';

export interface RunRecord {
  id: string;
  teamId: number;
  batchExportId: string;
  backfillId: string | null;
  status: string;
  dataIntervalStart: string | null;
  dataIntervalEnd: string;
  recordsCompleted: number;
  recordsTotalCount: number | null;
  bytesExported: number;
  latestError: string | null;
  cursor: string | null;
  attempt: number;
  nextAttemptAt: string;
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  createdAt: string;
  finishedAt: string | null;
  lastUpdatedAt: string;
}

export function toRunRecord(row: Selectable<BatchExportRunsTable>): RunRecord {
  return {
    id: row.id,
    teamId: row.team_id,
    batchExportId: row.batch_export_id,
    backfillId: row.backfill_id,
    status: row.status,
    dataIntervalStart: isoOrNull(row.data_interval_start),
    dataIntervalEnd: iso(row.data_interval_end),
    recordsCompleted: Number(row.records_completed),
    recordsTotalCount: row.records_total_count === null ? null : Number(row.records_total_count),
    bytesExported: Number(row.bytes_exported),
    latestError: row.latest_error,
    cursor: row.cursor,
    attempt: row.attempt,
    nextAttemptAt: iso(row.next_attempt_at),
    leaseOwner: row.lease_owner,
    leaseExpiresAt: isoOrNull(row.lease_expires_at),
    createdAt: iso(row.created_at),
    finishedAt: isoOrNull(row.finished_at),
    lastUpdatedAt: iso(row.last_updated_at),
  };
}

export async function insertRun(db: MetaDb, r: RunRecord): Promise<void> {
  await db
    .insertInto('batch_export_runs')
    .values({
      id: r.id,
      team_id: r.teamId,
      batch_export_id: r.batchExportId,
      backfill_id: r.backfillId,
      status: r.status,
      data_interval_start: r.dataIntervalStart,
      data_interval_end: r.dataIntervalEnd,
      records_completed: r.recordsCompleted,
      records_total_count: r.recordsTotalCount,
      bytes_exported: r.bytesExported,
      latest_error: r.latestError,
      cursor: r.cursor,
      attempt: r.attempt,
      next_attempt_at: r.nextAttemptAt,
      created_at: r.createdAt,
      last_updated_at: r.lastUpdatedAt,
    })
    .execute();
}

export async function findRun(db: MetaDb, exportId: string, runId: string) {
  const row = await db
    .selectFrom('batch_export_runs')
    .selectAll()
    .where('batch_export_id', '=', exportId)
    .where('id', '=', runId)
    .executeTakeFirst();
  return row && toRunRecord(row);
}

/** The `perExport` newest runs of each export, newest first. */
export async function latestRuns(db: MetaDb, exportIds: string[], perExport: number) {
  if (exportIds.length === 0) return new Map<string, RunRecord[]>();
  const ranked = db
    .selectFrom('batch_export_runs')
    .selectAll()
    .select(
      sql<number>`row_number() over (partition by batch_export_id order by created_at desc, id desc)`.as(
        'rn',
      ),
    )
    .where('batch_export_id', 'in', exportIds)
    .as('ranked');
  const rows = await db
    .selectFrom(ranked)
    .selectAll()
    .where('rn', '<=', perExport)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const out = new Map<string, RunRecord[]>();
  for (const row of rows) {
    const list = out.get(row.batch_export_id) ?? [];
    list.push(toRunRecord(row));
    out.set(row.batch_export_id, list);
  }
  return out;
}

/**
 * Takes one due run and leases it to `owner`: a queued or retryable run whose time has come, or a
 * running one whose lease expired (its node died). On PostgreSQL the candidate row is locked with
 * `FOR UPDATE SKIP LOCKED`, so concurrent nodes take different runs without waiting; SQLite runs
 * the statement under its single writer lock, which gives the same exclusivity.
 */
export async function claimRun(
  db: MetaDb,
  owner: string,
  now: string,
  leaseUntil: string,
): Promise<RunRecord | undefined> {
  const dialect = dialectOf(db);
  const lock = dialect.lockSkipLocked('r');
  const falsy = dialect.bool(false);
  const result = await sql<Selectable<BatchExportRunsTable>>`
    update batch_export_runs
    set status = 'Running', lease_owner = ${owner}, lease_expires_at = ${leaseUntil},
        attempt = attempt + 1, last_updated_at = ${now}
    where id = (
      select r.id from batch_export_runs r
      join batch_exports e on e.id = r.batch_export_id
      where e.paused = ${falsy} and e.deleted = ${falsy}
        and ((r.status in ('Starting', 'FailedRetryable') and r.next_attempt_at <= ${now})
          or (r.status = 'Running' and r.lease_expires_at < ${now}))
      order by r.next_attempt_at, r.created_at
      limit 1
      ${lock}
    )
    returning *`.execute(db);
  const row = result.rows[0];
  return row && toRunRecord(row);
}

/** Runs that have delivered, or are still going to deliver, their window. */
const DELIVERING = ['Starting', 'Running', 'FailedRetryable', 'Completed'];

/**
 * The data intervals of an export's runs overlapping [start, end) that delivered or will deliver
 * their rows: the schedule's own runs (`by: 'schedule'`) or those of its backfills.
 */
export async function deliveringIntervals(
  db: MetaDb,
  exportId: string,
  start: string,
  end: string,
  by: 'schedule' | 'backfill',
): Promise<Array<{ start: string; end: string }>> {
  const rows = await db
    .selectFrom('batch_export_runs')
    .select(['data_interval_start', 'data_interval_end'])
    .where('batch_export_id', '=', exportId)
    .where('status', 'in', DELIVERING)
    .where('backfill_id', by === 'schedule' ? 'is' : 'is not', null)
    .where('data_interval_end', '>', start)
    .where('data_interval_start', '<', end)
    .execute();
  return rows.map((r) => ({
    start: isoOrNull(r.data_interval_start) ?? new Date(0).toISOString(),
    end: iso(r.data_interval_end),
  }));
}
