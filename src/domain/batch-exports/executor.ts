import { scopedEvents } from '../../store/events/scoped.js';
import { type RunOutcome, renewLease, settleRun } from '../../store/meta/batch-export-leases.js';
import type { RunRecord } from '../../store/meta/batch-export-runs.js';
import { type BatchExportRecord, findBatchExport } from '../../store/meta/batch-exports.js';
import { findTeam } from '../../store/meta/teams.js';
import { eventsSinceFor } from '../data-lifecycle/retention.js';
import type { ExportDeps } from './deps.js';
import { withDefaults } from './destinations/config.js';
import { PermanentError } from './destinations/types.js';
import { fullConfig } from './service.js';
import type { PropertyFilter } from './sources/filters.js';
import { exportSource } from './sources/source.js';
import type { DestinationType } from './types.js';

/** Why a run stopped early: this node is shutting down, or the run is no longer ours. */
export type AbortReason = 'stop' | 'lost';

export interface RunResult {
  outcome: 'completed' | 'failed' | 'retry' | 'released' | 'lost';
  error?: string;
  export?: BatchExportRecord;
}

const strings = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);

/**
 * Exports one leased run: reads the window page by page and hands each page to the destination,
 * renewing the lease (and recording progress) as it goes. Errors are returned, not thrown.
 */
export async function executeRun(
  deps: ExportDeps,
  run: RunRecord,
  owner: string,
  stop: AbortSignal,
): Promise<RunResult> {
  const { settings } = deps;
  const controller = new AbortController();
  const onStop = () => controller.abort('stop' satisfies AbortReason);
  stop.addEventListener('abort', onStop, { once: true });
  const progress = { recordsCompleted: 0, bytesExported: 0, recordsTotalCount: null as number | null };
  const lease = () => new Date(deps.now().getTime() + settings.leaseMs).toISOString();
  const heartbeat = setInterval(
    async () => {
      const ours = await renewLease(
        deps.meta,
        run.id,
        owner,
        lease(),
        deps.now().toISOString(),
        progress,
      ).catch(() => true);
      if (!ours) controller.abort('lost' satisfies AbortReason);
    },
    Math.max(50, Math.floor(settings.leaseMs / 3)),
  );
  const settle = (outcome: RunOutcome) =>
    settleRun(deps.meta, run.id, owner, deps.now().toISOString(), { ...progress, ...outcome });
  try {
    const exp = await findBatchExport(deps.meta, run.batchExportId);
    if (!exp || exp.deleted) {
      await settle({ status: 'Cancelled', finishedAt: deps.now().toISOString() });
      return { outcome: 'lost' };
    }
    const destination = deps.destinations[exp.destinationType as DestinationType];
    if (!destination) throw new PermanentError(`Destination ${exp.destinationType} is not available`);
    const config = withDefaults(fullConfig(deps, exp), destination.fields);
    const team = await findTeam(deps.meta, exp.teamId);
    const scope = {
      filters: (exp.filters ?? []) as PropertyFilter[],
      includeEvents: strings(config.include_events),
      excludeEvents: strings(config.exclude_events),
      eventsSince: eventsSinceFor(team?.settings, deps.now()),
    };
    const window = { start: run.dataIntervalStart, end: run.dataIntervalEnd };
    const { source, schema } = await exportSource(
      scopedEvents(deps.events, { teamId: exp.teamId, lane: 'export' }),
      exp,
      scope,
      window,
      settings.pageRows,
    );
    const signal = controller.signal;
    progress.recordsTotalCount = await source.count();
    const writer = await destination.open(config, {
      exportId: exp.id,
      runId: run.id,
      teamId: exp.teamId,
      dataIntervalStart: run.dataIntervalStart,
      dataIntervalEnd: run.dataIntervalEnd,
      schema,
      signal,
    });
    try {
      // The next page is read while this one is written: at most two pages in memory.
      const pages = source.pages(signal);
      let next = pages.next();
      for (;;) {
        const page = await next;
        if (page.done) break;
        next = pages.next();
        next.catch(() => {});
        signal.throwIfAborted();
        progress.bytesExported += await writer.write(page.value);
        progress.recordsCompleted += page.value.length;
      }
      signal.throwIfAborted();
      progress.bytesExported += await writer.close();
    } catch (error) {
      await writer.abort();
      throw error;
    }
    const settled = await settle({
      status: 'Completed',
      latestError: null,
      finishedAt: deps.now().toISOString(),
    });
    return settled ? { outcome: 'completed', export: exp } : { outcome: 'lost' };
  } catch (error) {
    return await failure(deps, run, controller.signal, error, settle);
  } finally {
    clearInterval(heartbeat);
    stop.removeEventListener('abort', onStop);
  }
}

async function failure(
  deps: ExportDeps,
  run: RunRecord,
  signal: AbortSignal,
  error: unknown,
  settle: (o: RunOutcome) => Promise<boolean>,
): Promise<RunResult> {
  const reason = signal.aborted ? (signal.reason as AbortReason) : undefined;
  if (reason === 'lost') return { outcome: 'lost' };
  if (reason === 'stop') {
    // Handed back untouched, for this or another node to pick up at once.
    await settle({
      status: 'Starting',
      attempt: Math.max(0, run.attempt - 1),
      nextAttemptAt: deps.now().toISOString(),
    });
    return { outcome: 'released' };
  }
  const message = error instanceof Error ? error.message : String(error);
  // `attempt` was counted when the run was claimed.
  const attempt = run.attempt;
  const permanent = error instanceof PermanentError;
  if (permanent || attempt >= deps.settings.maxAttempts) {
    const ok = await settle({ status: 'Failed', latestError: message, finishedAt: deps.now().toISOString() });
    return ok ? { outcome: 'failed', error: message } : { outcome: 'lost' };
  }
  const delay = Math.min(deps.settings.retryBaseMs * 2 ** (attempt - 1), 3600_000);
  const ok = await settle({
    status: 'FailedRetryable',
    latestError: message,
    nextAttemptAt: new Date(deps.now().getTime() + delay).toISOString(),
  });
  return ok ? { outcome: 'retry', error: message } : { outcome: 'lost' };
}
