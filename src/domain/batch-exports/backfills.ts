import { validationError } from '../../errors.js';
import { scopedEvents } from '../../store/events/scoped.js';
import { type BackfillRecord, insertBackfill } from '../../store/meta/batch-export-backfills.js';
import type { BatchExportRecord } from '../../store/meta/batch-exports.js';
import { newUuid } from '../ids.js';
import type { ExportDeps } from './deps.js';
import { exportWindowEnd, intervalMs } from './schedule.js';
import { earliestData } from './sources/source.js';
import type { Interval, Model } from './types.js';

/** Python's `datetime.isoformat()` in UTC, as PostHog writes it into workflow ids. */
function pyIso(iso: string): string {
  const [date, time] = iso.replace('Z', '').split('T');
  const [hms, frac] = (time ?? '').split('.');
  const micros = frac && Number(frac) !== 0 ? `.${frac.padEnd(6, '0')}` : '';
  return `${date}T${hms}${micros}+00:00`;
}

/** Number of runs a backfill of [start, end) makes (its last window may be short). */
export function countWindows(
  start: string,
  end: string,
  interval: Interval,
  tz: string,
  offsetSeconds: number | null,
): number {
  let n = 0;
  for (
    let at = new Date(start);
    at.toISOString() < end;
    at = exportWindowEnd(at, interval, tz, offsetSeconds)
  )
    n++;
  return n;
}

/**
 * Records a backfill of [start, end); the scheduler then creates its runs one window at a time,
 * the first starting at `start`. `requested` is what the caller asked for, which names it.
 */
export async function startBackfill(
  deps: ExportDeps,
  exp: BatchExportRecord,
  start: string,
  end: string,
  requested: { start: string | null; end: string | null },
  options: { rerun?: boolean } = {},
): Promise<BackfillRecord> {
  const now = deps.now().toISOString();
  const backfill: BackfillRecord = {
    id: newUuid(),
    teamId: exp.teamId,
    batchExportId: exp.id,
    workflowId: `${exp.id}-Backfill-${requested.start ? pyIso(requested.start) : 'START'}-${requested.end ? pyIso(requested.end) : 'END'}`,
    startAt: start,
    endAt: requested.end,
    status: 'Starting',
    nextWindowStart: start,
    windowEnd: end,
    totalRuns: countWindows(start, end, exp.interval as Interval, exp.timezone, exp.intervalOffset),
    rerun: options.rerun ?? false,
    createdAt: now,
    finishedAt: null,
    lastUpdatedAt: now,
  };
  await insertBackfill(deps.meta, backfill);
  return backfill;
}

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})$/i;
const ISO_NAIVE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?)?$/;

function backfillDate(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (ISO_NAIVE.test(value)) throw validationError(`Input ${value} is naive.`);
  const date = ISO_WITH_ZONE.test(value) ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime())) {
    throw validationError(`Input ${value} is not a valid ISO formatted datetime.`);
  }
  return date.toISOString();
}

const pyDate = (iso: string) => iso.slice(0, 19).replace('T', ' ');

/** `POST …/backfills/` with PostHog's rules and messages. */
export async function requestBackfill(
  deps: ExportDeps,
  exp: BatchExportRecord,
  input: { start_at?: string | null; end_at?: string | null },
): Promise<BackfillRecord> {
  const start = backfillDate(input.start_at);
  const end = backfillDate(input.end_at);
  const now = deps.now();
  if (start && end && start >= end) {
    throw validationError("The initial backfill datetime 'start_at' happens after 'end_at'");
  }
  if (end && new Date(end).getTime() > now.getTime() + intervalMs(exp.interval as Interval)) {
    throw validationError(
      `The provided 'end_at' (${end}) is too far into the future. Cannot backfill beyond 1 batch period into the future.`,
    );
  }
  if (!end && exp.destinationType !== 'HTTP' && exp.destinationType !== 'NoOp') {
    throw validationError('Backfilling a BatchExport with no end date is not allowed');
  }
  const earliest = await earliestData(
    scopedEvents(deps.events, { teamId: exp.teamId, lane: 'export' }),
    exp.model as Model,
    exp.teamId,
  );
  if (!earliest) throw validationError('There is no data to backfill for this model.');
  if (end && end <= earliest) {
    throw validationError(
      `The provided backfill date range contains no data. The earliest possible backfill start date is ${pyDate(earliest)}`,
    );
  }
  const from = !start || start < earliest ? earliest : start;
  return startBackfill(deps, exp, from, end ?? now.toISOString(), { start, end });
}
