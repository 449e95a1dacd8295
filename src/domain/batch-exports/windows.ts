import {
  advanceBackfillCursor,
  type BackfillRecord,
  backfillRunCounts,
  finishBackfill,
  listOpenBackfills,
} from '../../store/meta/batch-export-backfills.js';
import { insertRun, type RunRecord } from '../../store/meta/batch-export-runs.js';
import {
  advanceExportCursor,
  type BatchExportRecord,
  findBatchExport,
  listSchedulable,
} from '../../store/meta/batch-exports.js';
import type { MetaDb } from '../../store/meta/db.js';
import { newUuid } from '../ids.js';
import type { ExportDeps } from './deps.js';
import { windowEnd } from './intervals.js';
import type { Interval } from './types.js';

/** Windows created per export in one tick, so a long-stopped node catches up without a burst. */
const MAX_WINDOWS_PER_TICK = 50;

function newRun(
  exp: { id: string; teamId: number },
  start: string,
  end: string,
  now: string,
  backfillId: string | null,
) {
  return {
    id: newUuid(),
    teamId: exp.teamId,
    batchExportId: exp.id,
    backfillId,
    status: 'Starting',
    dataIntervalStart: start,
    dataIntervalEnd: end,
    recordsCompleted: 0,
    recordsTotalCount: null,
    bytesExported: 0,
    latestError: null,
    cursor: null,
    attempt: 0,
    nextAttemptAt: now,
    leaseOwner: null,
    leaseExpiresAt: null,
    createdAt: now,
    finishedAt: null,
    lastUpdatedAt: now,
  } satisfies RunRecord;
}

/** Moves a cursor and creates the window's run in one transaction: both happen, or neither. */
async function createRun(deps: ExportDeps, advance: (trx: MetaDb) => Promise<boolean>, run: RunRecord) {
  return deps.meta.transaction().execute(async (trx) => {
    if (!(await advance(trx))) return false;
    await insertRun(trx, run);
    return true;
  });
}

/**
 * A scheduled window is due once it has ended and `settleMs` has passed (rows stamped just before
 * the end may still be on their way to the events store). None is created past `end_at`.
 */
async function scheduleExport(deps: ExportDeps, exp: BatchExportRecord) {
  const now = deps.now();
  let start = exp.nextWindowStart;
  for (let i = 0; i < MAX_WINDOWS_PER_TICK; i++) {
    const end = windowEnd(new Date(start), exp.interval as Interval, exp.timezone).toISOString();
    if (new Date(end).getTime() + deps.settings.settleMs > now.getTime()) return;
    if (exp.endAt && end > exp.endAt) return;
    const from = start;
    const run = newRun(exp, from, end, now.toISOString(), null);
    if (!(await createRun(deps, (trx) => advanceExportCursor(trx, exp.id, from, end), run))) return;
    start = end;
  }
}

export async function scheduleWindows(deps: ExportDeps): Promise<void> {
  for (const exp of await listSchedulable(deps.meta)) await scheduleExport(deps, exp);
}

/**
 * Backfills run one window at a time: the next run is created once the previous one ended, and
 * the backfill ends (Completed, or Failed if a run failed) after its last window.
 */
export async function advanceBackfills(deps: ExportDeps): Promise<void> {
  const open = await listOpenBackfills(deps.meta);
  const counts = await backfillRunCounts(
    deps.meta,
    open.map((b) => b.id),
  );
  for (const b of open) {
    const c = counts.get(b.id) ?? {};
    if ((c.Starting ?? 0) + (c.Running ?? 0) + (c.FailedRetryable ?? 0) > 0) continue;
    await advanceBackfill(deps, b, c);
  }
}

async function advanceBackfill(deps: ExportDeps, b: BackfillRecord, counts: Record<string, number>) {
  const now = deps.now().toISOString();
  if (b.nextWindowStart >= b.windowEnd) {
    await finishBackfill(deps.meta, b.id, (counts.Failed ?? 0) > 0 ? 'Failed' : 'Completed', now);
    return;
  }
  const exp = { id: b.batchExportId, teamId: b.teamId };
  const parent = await findBatchExport(deps.meta, b.batchExportId);
  if (!parent) return;
  const next = windowEnd(
    new Date(b.nextWindowStart),
    parent.interval as Interval,
    parent.timezone,
  ).toISOString();
  const end = next < b.windowEnd ? next : b.windowEnd;
  const run = newRun(exp, b.nextWindowStart, end, now, b.id);
  await createRun(deps, (trx) => advanceBackfillCursor(trx, b.id, b.nextWindowStart, end, now), run);
}
