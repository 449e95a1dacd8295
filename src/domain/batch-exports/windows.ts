import {
  advanceBackfillCursor,
  type BackfillRecord,
  backfillRunCounts,
  finishBackfill,
  listOpenBackfills,
} from '../../store/meta/batch-export-backfills.js';
import { deliveringIntervals, insertRun, type RunRecord } from '../../store/meta/batch-export-runs.js';
import {
  advanceExportCursor,
  type BatchExportRecord,
  findBatchExport,
  listSchedulable,
} from '../../store/meta/batch-exports.js';
import type { MetaDb } from '../../store/meta/db.js';
import { newUuid } from '../ids.js';
import type { ExportDeps } from './deps.js';
import { exportWindowEnd } from './schedule.js';
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

/** The parts of [start, end) that none of `covered` contains, in order. */
export function uncovered(
  start: string,
  end: string,
  covered: Array<{ start: string; end: string }>,
): Array<{ start: string; end: string }> {
  const gaps: Array<{ start: string; end: string }> = [];
  let at = start;
  for (const c of [...covered].sort((a, b) => (a.start < b.start ? -1 : 1))) {
    if (c.end <= at || c.start >= end) continue;
    if (c.start > at) gaps.push({ start: at, end: c.start });
    if (c.end > at) at = c.end;
    if (at >= end) break;
  }
  if (at < end) gaps.push({ start: at, end });
  return gaps;
}

/**
 * Moves a cursor past [start, end) and creates runs for the parts of it nobody else delivers, in
 * one transaction: both happen, or neither. A window is delivered once per export: the schedule
 * leaves out what a backfill delivers, and a backfill what the schedule delivers (unless it is a
 * rerun someone asked for), so the same rows never reach the destination twice.
 */
async function createRuns(
  deps: ExportDeps,
  advance: (trx: MetaDb) => Promise<boolean>,
  window: { start: string; end: string },
  others: 'schedule' | 'backfill' | null,
  make: (start: string, end: string) => RunRecord,
): Promise<{ advanced: boolean; runs: number }> {
  return deps.meta.transaction().execute(async (trx) => {
    if (!(await advance(trx))) return { advanced: false, runs: 0 };
    const exportId = make(window.start, window.end).batchExportId;
    const covered = others ? await deliveringIntervals(trx, exportId, window.start, window.end, others) : [];
    const gaps = uncovered(window.start, window.end, covered);
    for (const gap of gaps) await insertRun(trx, make(gap.start, gap.end));
    return { advanced: true, runs: gaps.length };
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
    const end = exportWindowEnd(
      new Date(start),
      exp.interval as Interval,
      exp.timezone,
      exp.intervalOffset,
    ).toISOString();
    if (new Date(end).getTime() + deps.settings.settleMs > now.getTime()) return;
    if (exp.endAt && end > exp.endAt) return;
    const from = start;
    const created = await createRuns(
      deps,
      (trx) => advanceExportCursor(trx, exp.id, from, end),
      { start: from, end },
      'backfill',
      (s, e) => newRun(exp, s, e, now.toISOString(), null),
    );
    if (!created.advanced) return;
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
  const exp = { id: b.batchExportId, teamId: b.teamId };
  const parent = await findBatchExport(deps.meta, b.batchExportId);
  if (!parent) return;
  let start = b.nextWindowStart;
  // Windows the schedule delivers create no run: skip past them to the next one that does.
  for (let i = 0; i < MAX_WINDOWS_PER_TICK; i++) {
    const now = deps.now().toISOString();
    if (start >= b.windowEnd) {
      await finishBackfill(deps.meta, b.id, (counts.Failed ?? 0) > 0 ? 'Failed' : 'Completed', now);
      return;
    }
    const next = exportWindowEnd(
      new Date(start),
      parent.interval as Interval,
      parent.timezone,
      parent.intervalOffset,
    ).toISOString();
    const end = next < b.windowEnd ? next : b.windowEnd;
    const from = start;
    const created = await createRuns(
      deps,
      (trx) => advanceBackfillCursor(trx, b.id, from, end, now),
      { start: from, end },
      b.rerun ? null : 'schedule',
      (s, e) => newRun(exp, s, e, now, b.id),
    );
    if (!created.advanced || created.runs > 0) return;
    start = end;
  }
}
