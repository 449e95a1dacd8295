import type { Insertable, Selectable } from 'kysely';
import type { BatchExportsTable } from './batch-export-tables.js';
import { bool, iso, isoOrNull, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';

export interface BatchExportRecord {
  id: string;
  teamId: number;
  name: string;
  model: string;
  interval: string;
  timezone: string;
  paused: boolean;
  pausedReason: string | null;
  deleted: boolean;
  destinationType: string;
  /** Non-secret config fields. */
  destinationConfig: Record<string, unknown>;
  /** Secret config fields, encrypted by the domain; never readable here. */
  destinationSecrets: string | null;
  hogqlQuery: string | null;
  schema: Record<string, unknown> | null;
  filters: unknown[] | null;
  startAt: string | null;
  endAt: string | null;
  createdAt: string;
  lastUpdatedAt: string;
  lastPausedAt: string | null;
  nextWindowStart: string;
  consecutiveFailures: number;
  /** Seconds into the day (or week, from Sunday) where day and week windows start; null: 0. */
  intervalOffset: number | null;
}

/** Which exports a caller may see: one project's, or every project's of an organization. */
export type ExportScope = { teamId: number } | { organizationId: string };

type Row = Selectable<BatchExportsTable>;

function toRecord(row: Row): BatchExportRecord {
  return {
    id: row.id,
    teamId: row.team_id,
    name: row.name,
    model: row.model,
    interval: row.interval,
    timezone: row.timezone,
    paused: bool(row.paused),
    pausedReason: row.paused_reason,
    deleted: bool(row.deleted),
    destinationType: row.destination_type,
    destinationConfig: json<Record<string, unknown>>(row.destination_config) ?? {},
    destinationSecrets: row.destination_secrets,
    hogqlQuery: row.hogql_query,
    schema: json<Record<string, unknown> | null>(row.schema) ?? null,
    filters: json<unknown[] | null>(row.filters) ?? null,
    startAt: isoOrNull(row.start_at),
    endAt: isoOrNull(row.end_at),
    createdAt: iso(row.created_at),
    lastUpdatedAt: iso(row.last_updated_at),
    lastPausedAt: isoOrNull(row.last_paused_at),
    nextWindowStart: iso(row.next_window_start),
    consecutiveFailures: Number(row.consecutive_failures),
    intervalOffset: row.interval_offset === null ? null : Number(row.interval_offset),
  };
}

function scoped(db: MetaDb, scope: ExportScope) {
  const q = db.selectFrom('batch_exports').where('batch_exports.deleted', '=', false);
  return 'teamId' in scope
    ? q.where('batch_exports.team_id', '=', scope.teamId)
    : q.where('batch_exports.team_id', 'in', (eb) =>
        eb.selectFrom('teams').select('teams.id').where('teams.organization_id', '=', scope.organizationId),
      );
}

export async function findBatchExport(db: MetaDb, id: string, scope?: ExportScope) {
  const row = scope
    ? await scoped(db, scope).selectAll('batch_exports').where('batch_exports.id', '=', id).executeTakeFirst()
    : await db.selectFrom('batch_exports').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toRecord(row);
}

export async function listBatchExports(
  db: MetaDb,
  scope: ExportScope,
  page: { limit: number; offset: number },
) {
  const [rows, total] = await Promise.all([
    scoped(db, scope)
      .selectAll('batch_exports')
      .orderBy('batch_exports.created_at', 'desc')
      .orderBy('batch_exports.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    scoped(db, scope)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { count: Number(total.n), results: rows.map(toRecord) };
}

/** Exports the scheduler may create runs for. */
export async function listSchedulable(db: MetaDb): Promise<BatchExportRecord[]> {
  const rows = await db
    .selectFrom('batch_exports')
    .selectAll()
    .where('deleted', '=', false)
    .where('paused', '=', false)
    .execute();
  return rows.map(toRecord);
}

function toRow(r: Partial<BatchExportRecord>) {
  return {
    name: r.name,
    model: r.model,
    interval: r.interval,
    timezone: r.timezone,
    paused: r.paused,
    paused_reason: r.pausedReason,
    deleted: r.deleted,
    destination_type: r.destinationType,
    destination_config: r.destinationConfig === undefined ? undefined : toJson(r.destinationConfig),
    destination_secrets: r.destinationSecrets,
    hogql_query: r.hogqlQuery,
    schema: r.schema === undefined ? undefined : r.schema && toJson(r.schema),
    filters: r.filters === undefined ? undefined : r.filters && toJson(r.filters),
    start_at: r.startAt,
    end_at: r.endAt,
    last_updated_at: r.lastUpdatedAt,
    last_paused_at: r.lastPausedAt,
    next_window_start: r.nextWindowStart,
    consecutive_failures: r.consecutiveFailures,
    interval_offset: r.intervalOffset,
  };
}

export async function insertBatchExport(db: MetaDb, r: BatchExportRecord): Promise<void> {
  const row = { ...toRow(r), id: r.id, team_id: r.teamId, created_at: r.createdAt };
  await db
    .insertInto('batch_exports')
    .values(row as Insertable<BatchExportsTable>)
    .execute();
}

export async function updateBatchExport(db: MetaDb, id: string, patch: Partial<BatchExportRecord>) {
  await db.updateTable('batch_exports').set(toRow(patch)).where('id', '=', id).execute();
}

/** Moves the scheduling cursor only if nobody moved it first; true when this caller did. */
export async function advanceExportCursor(db: MetaDb, id: string, from: string, to: string) {
  const result = await db
    .updateTable('batch_exports')
    .set({ next_window_start: to })
    .where('id', '=', id)
    .where('next_window_start', '=', from)
    .where('paused', '=', false)
    .where('deleted', '=', false)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Counts a run outcome against the export: a success resets the streak, a failure extends it. */
export async function recordOutcome(db: MetaDb, id: string, failed: boolean): Promise<number> {
  const row = await db
    .updateTable('batch_exports')
    .set((eb) => ({ consecutive_failures: failed ? eb('consecutive_failures', '+', 1) : 0 }))
    .where('id', '=', id)
    .returning('consecutive_failures')
    .executeTakeFirst();
  return Number(row?.consecutive_failures ?? 0);
}
