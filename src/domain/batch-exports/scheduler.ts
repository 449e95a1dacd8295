import { hostname } from 'node:os';
import { claimRun } from '../../store/meta/batch-export-runs.js';
import { recordOutcome, updateBatchExport } from '../../store/meta/batch-exports.js';
import { randomBase62 } from '../ids.js';
import type { ExportDeps } from './deps.js';
import { executeRun, type RunResult } from './executor.js';
import { advanceBackfills, scheduleWindows } from './windows.js';

export interface SchedulerLog {
  error(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface Scheduler {
  /** Polls every `pollMs` until stopped. */
  start(): void;
  /** Creates due runs and starts as many as `concurrency` allows; does not wait for them. */
  tick(): Promise<void>;
  /** Resolves when every run this node started has ended. */
  idle(): Promise<void>;
  /** Stops polling and hands running runs back (they resume elsewhere or on restart). */
  stop(): Promise<void>;
  readonly nodeId: string;
}

export function createScheduler(deps: ExportDeps, log: SchedulerLog): Scheduler {
  const nodeId = `${hostname()}-${process.pid}-${randomBase62(6)}`;
  const stopping = new AbortController();
  const running = new Set<Promise<unknown>>();
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;

  const afterRun = async (result: RunResult, exportId: string) => {
    if (result.outcome === 'completed') await recordOutcome(deps.meta, exportId, false);
    if (result.outcome !== 'failed') return;
    const streak = await recordOutcome(deps.meta, exportId, true);
    if (streak >= deps.settings.autoPauseAfter) {
      const now = deps.now().toISOString();
      await updateBatchExport(deps.meta, exportId, {
        paused: true,
        lastPausedAt: now,
        lastUpdatedAt: now,
        pausedReason: `Paused after ${streak} consecutive failed runs. Last error: ${result.error}`,
      });
      log.info(
        { batch_export_id: exportId, failures: streak },
        'batch export paused after repeated failures',
      );
    }
  };

  const claimAndRun = async () => {
    while (running.size < deps.settings.concurrency && !stopping.signal.aborted) {
      const now = deps.now();
      const lease = new Date(now.getTime() + deps.settings.leaseMs).toISOString();
      const run = await claimRun(deps.meta, nodeId, now.toISOString(), lease);
      if (!run) return;
      const task = executeRun(deps, run, nodeId, stopping.signal)
        .then((result) => afterRun(result, run.batchExportId))
        .catch((err) => log.error({ err, run_id: run.id }, 'batch export run bookkeeping failed'))
        .finally(() => running.delete(task));
      running.add(task);
    }
  };

  const tick = async () => {
    if (stopping.signal.aborted) return;
    await scheduleWindows(deps);
    await advanceBackfills(deps);
    await claimAndRun();
  };

  const loop = () => {
    ticking = tick()
      .catch((err) => log.error({ err }, 'batch export scheduler tick failed'))
      .finally(() => {
        if (!stopping.signal.aborted) timer = setTimeout(loop, deps.settings.pollMs);
      });
  };

  return {
    nodeId,
    start() {
      if (!timer && !ticking) timer = setTimeout(loop, 0);
    },
    tick,
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await ticking;
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
