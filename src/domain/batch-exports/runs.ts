import { notFound, validationError } from '../../errors.js';
import {
  type BackfillRecord,
  backfillRunCounts,
  findBackfill,
  finishBackfill,
} from '../../store/meta/batch-export-backfills.js';
import { cancelRuns } from '../../store/meta/batch-export-leases.js';
import {
  type KeysetQuery,
  type Position,
  pageBackfills,
  pageRuns,
} from '../../store/meta/batch-export-pages.js';
import { findRun, type RunRecord } from '../../store/meta/batch-export-runs.js';
import type { BatchExportRecord } from '../../store/meta/batch-exports.js';
import { isUuid } from '../ids.js';
import { startBackfill } from './backfills.js';
import type { ExportDeps } from './deps.js';

/** A page of a cursor-paginated list and where the neighbouring pages start. */
export interface CursorPage<T> {
  results: T[];
  next: Position | null;
  previous: Position | null;
}

export function encodeCursor(p: Position): string {
  return Buffer.from(JSON.stringify([p.value, p.id, p.back ? 1 : 0])).toString('base64url');
}

export function decodeCursor(raw: string | undefined): Position | undefined {
  if (raw === undefined) return undefined;
  try {
    const [value, id, back] = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as unknown[];
    if (
      typeof value === 'string' &&
      typeof id === 'string' &&
      isUuid(id) &&
      !Number.isNaN(Date.parse(value))
    ) {
      return { value: new Date(value).toISOString(), id, back: back === 1 };
    }
  } catch {}
  throw notFound('Invalid cursor');
}

async function cursorPage<T extends { id: string }>(
  q: KeysetQuery<string>,
  key: keyof T,
  fetch: (q: KeysetQuery<string>) => Promise<{ records: T[]; more: boolean }>,
): Promise<CursorPage<T>> {
  const { records, more } = await fetch(q);
  const first = records[0];
  const last = records[records.length - 1];
  const at = (r: T | undefined, back: boolean) => (r ? { value: String(r[key]), id: r.id, back } : null);
  if (q.position?.back)
    return { results: records, previous: more ? at(first, true) : null, next: at(last, false) };
  return {
    results: records,
    next: more ? at(last, false) : null,
    previous: q.position ? at(first, true) : null,
  };
}

export interface ListQuery {
  ordering?: string;
  cursor?: string;
  after?: string;
  before?: string;
}

const WEEK = 7 * 24 * 3600_000;

export async function listRuns(deps: ExportDeps, exp: BatchExportRecord, query: ListQuery) {
  const ordering = query.ordering ?? '-created_at';
  const column = ordering.replace(/^-/, '');
  if (column !== 'created_at' && column !== 'data_interval_start') {
    throw validationError(`"${ordering}" is not a valid ordering.`, 'ordering', 'invalid_choice');
  }
  const now = deps.now();
  const q: KeysetQuery<'created_at' | 'data_interval_start'> = {
    orderBy: column,
    descending: ordering.startsWith('-'),
    from: query.after ?? new Date(now.getTime() - WEEK).toISOString(),
    to: query.before ?? now.toISOString(),
    limit: 100,
    ...(query.cursor !== undefined && { position: decodeCursor(query.cursor) }),
  };
  const key = column === 'created_at' ? 'createdAt' : 'dataIntervalStart';
  return cursorPage<RunRecord>(q, key, (k) => pageRuns(deps.meta, exp.id, k as typeof q));
}

export async function listBackfills(deps: ExportDeps, exp: BatchExportRecord, query: ListQuery) {
  const ordering = query.ordering ?? '-created_at';
  const column = ordering.replace(/^-/, '');
  if (column !== 'created_at' && column !== 'start_at') {
    throw validationError(`"${ordering}" is not a valid ordering.`, 'ordering', 'invalid_choice');
  }
  const q: KeysetQuery<'created_at' | 'start_at'> = {
    orderBy: column,
    descending: ordering.startsWith('-'),
    limit: 50,
    ...(query.cursor !== undefined && { position: decodeCursor(query.cursor) }),
  };
  const page = await cursorPage<BackfillRecord>(q, column === 'created_at' ? 'createdAt' : 'startAt', (k) =>
    pageBackfills(deps.meta, exp.id, k as typeof q),
  );
  const counts = await backfillRunCounts(
    deps.meta,
    page.results.map((b) => b.id),
  );
  return { ...page, counts };
}

export async function getRun(deps: ExportDeps, exp: BatchExportRecord, runId: string) {
  const run = isUuid(runId) ? await findRun(deps.meta, exp.id, runId.toLowerCase()) : undefined;
  if (!run) throw notFound();
  return run;
}

export async function cancelRun(deps: ExportDeps, exp: BatchExportRecord, runId: string): Promise<void> {
  const run = await getRun(deps, exp, runId);
  if (run.status !== 'Running' && run.status !== 'Starting') {
    throw validationError(`Cannot cancel a run that is in '${run.status}' status`);
  }
  await cancelRuns(deps.meta, { batchExportId: exp.id, runId: run.id }, deps.now().toISOString());
}

/** A retry is a backfill of the run's window, as in PostHog. */
export async function retryRun(deps: ExportDeps, exp: BatchExportRecord, runId: string) {
  const run = await getRun(deps, exp, runId);
  const start = run.dataIntervalStart ?? new Date(0).toISOString();
  // Asked to run again: this window is exported again even though it was delivered before.
  return startBackfill(
    deps,
    exp,
    start,
    run.dataIntervalEnd,
    { start, end: run.dataIntervalEnd },
    { rerun: true },
  );
}

export async function getBackfill(deps: ExportDeps, exp: BatchExportRecord, id: string) {
  const backfill = isUuid(id) ? await findBackfill(deps.meta, exp.id, id.toLowerCase()) : undefined;
  if (!backfill) throw notFound();
  const counts = (await backfillRunCounts(deps.meta, [backfill.id])).get(backfill.id) ?? {};
  return { backfill, counts };
}

export async function cancelBackfill(deps: ExportDeps, exp: BatchExportRecord, id: string): Promise<void> {
  const { backfill } = await getBackfill(deps, exp, id);
  if (backfill.status !== 'Running' && backfill.status !== 'Starting') {
    throw validationError(`Cannot cancel a backfill that is in '${backfill.status}' status`);
  }
  const now = deps.now().toISOString();
  await finishBackfill(deps.meta, backfill.id, 'Cancelled', now);
  await cancelRuns(deps.meta, { batchExportId: exp.id, backfillId: backfill.id }, now);
}
