import { notFound } from '../../errors.js';
import { cancelExportBackfills } from '../../store/meta/batch-export-backfills.js';
import { cancelRuns } from '../../store/meta/batch-export-leases.js';
import { type ExportScope, updateBatchExport } from '../../store/meta/batch-exports.js';
import { isUuid } from '../ids.js';
import { startBackfill } from './backfills.js';
import type { ExportDeps } from './deps.js';
import { getExport, pausePatch, unpausePatch } from './service.js';
import type { Interval } from './types.js';

async function exportFor(deps: ExportDeps, scope: ExportScope, id: string) {
  try {
    return await getExport(deps, scope, id);
  } catch {
    throw notFound(isUuid(id) ? `BatchExport ID '${id}' not found.` : 'Not found.');
  }
}

/** Stops new runs (a running one finishes). Pausing a paused export changes nothing. */
export async function pauseExport(deps: ExportDeps, scope: ExportScope, id: string): Promise<void> {
  const exp = await exportFor(deps, scope, id);
  if (exp.paused) return;
  await updateBatchExport(deps.meta, exp.id, pausePatch(deps.now().toISOString()));
}

/**
 * Resumes the schedule at the window holding now. With `backfill`, the windows skipped while
 * paused are exported by a backfill (from where the schedule stopped to where it resumes).
 */
export async function unpauseExport(deps: ExportDeps, scope: ExportScope, id: string, backfill: boolean) {
  const exp = await exportFor(deps, scope, id);
  if (!exp.paused) return;
  const patch = unpausePatch(exp, deps.now(), exp.interval as Interval, exp.timezone);
  await updateBatchExport(deps.meta, exp.id, patch);
  if (backfill && patch.nextWindowStart > exp.nextWindowStart) {
    await startBackfill(deps, exp, exp.nextWindowStart, patch.nextWindowStart, {
      start: exp.lastPausedAt ?? exp.nextWindowStart,
      end: patch.lastUpdatedAt,
    });
  }
}

/** Soft delete: the export disappears, its unfinished backfills and runs are cancelled. */
export async function deleteExport(deps: ExportDeps, scope: ExportScope, id: string): Promise<void> {
  const exp = await getExport(deps, scope, id);
  const now = deps.now().toISOString();
  await updateBatchExport(deps.meta, exp.id, { deleted: true, lastUpdatedAt: now });
  await cancelExportBackfills(deps.meta, exp.id, now);
  await cancelRuns(deps.meta, { batchExportId: exp.id }, now);
}
