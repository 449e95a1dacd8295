import type { MetaDb } from '../../store/meta/db.js';
import {
  addMetrics,
  appendLogs,
  type FunctionLog,
  type LogLevel,
  METRIC_HOURS_KEPT,
  pruneMetrics,
} from '../../store/meta/hog-function-logs.js';
import {
  clearFailing,
  findHogFunction,
  type HogFunctionRecord,
  markFailing,
  updateHogFunction,
} from '../../store/meta/hog-functions.js';
import { claimJobs, dropJobs, finishJob, type HogJob, retryJob } from '../../store/meta/hog-queue.js';
import { ACTION_JOB_PREFIX } from './action-webhooks.js';
import { hourOf } from './enqueue.js';
import { buildRequest, DELIVERY_MAX_ANSWER_BYTES, redact, type Sender } from './service.js';
import type { OutgoingRequest } from './templates.js';
import { type LiquidEngine, TemplateBusyError } from './templating.js';

export interface WorkerDeps {
  meta: MetaDb;
  now: () => Date;
  send: Sender;
  /** Where Liquid inputs render (worker threads, off the event loop). */
  liquid: LiquidEngine;
}

export interface WorkerOptions {
  /** This node's lease name. */
  owner: string;
  pollMs: number;
  /** How long a taken job stays this node's: past it (the node died) another node takes it. */
  leaseMs: number;
  /** Requests in flight at once per destination on this node (PostHog limits each function too). */
  perFunction: number;
  /** Requests in flight at once on this node. */
  total: number;
  /** Tries per invocation, the first included (PostHog's fetch retries: 3 in all). */
  maxAttempts: number;
  /** Pause before the second try, doubled per try up to `backoffMaxMs`, plus up to 20 % jitter. */
  backoffMs: number;
  backoffMaxMs: number;
  /** A destination whose every try failed for this long disables itself. */
  disableAfterMs: number;
  /** How often log lines and counters are written (default 1 s). */
  flushMs?: number;
  onError?: (error: unknown) => void;
  /** Actions' Slack messages have no destination to log to: their lines go here (the server log). */
  onActionLog?: (entry: { teamId: number; actionId: number; level: LogLevel; message: string }) => void;
}

export const DEFAULT_MAX_ATTEMPTS = 3;

/**
 * Delivery workers: every node may run them. Jobs are taken from the queue under a lease, the
 * inputs rendered, the request sent through the network guard (timeout, answer cap), and the
 * outcome written as a log line and a metric. 5xx, 429, timeouts and broken connections are tried
 * again with backoff; any other 4xx is not. A destination failing without a success for
 * `disableAfterMs` is disabled, with a log line saying why.
 */
export function startDeliveryWorker(deps: WorkerDeps, opts: WorkerOptions) {
  const running = new Map<string, number>();
  let inFlight = 0;
  let stopped = false;
  let ticking = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let prunedAt = 0;
  const jobs = new Set<Promise<void>>();

  const log = (
    f: Pick<HogFunctionRecord, 'id' | 'teamId'>,
    job: HogJob,
    level: LogLevel,
    message: string,
  ): FunctionLog => ({
    teamId: f.teamId,
    functionId: f.id,
    instanceId: job.eventUuid,
    level,
    message,
    timestamp: deps.now().toISOString(),
  });

  /**
   * Log lines and counters wait here and are written together once a second: one statement per
   * delivery each held SQLite's one connection, which capture's person work shares. Lines not yet
   * written when the node dies are lost (the deliveries are not).
   */
  let pendingLogs: FunctionLog[] = [];
  let pendingMetrics = new Map<string, number>();
  function metric(functionId: string, kind: string, name: string): void {
    const key = `${functionId}\n${hourOf(deps.now())}\n${kind}\n${name}`;
    pendingMetrics.set(key, (pendingMetrics.get(key) ?? 0) + 1);
  }
  async function flush(): Promise<void> {
    const logs = pendingLogs;
    const counts = pendingMetrics;
    pendingLogs = [];
    pendingMetrics = new Map();
    await appendLogs(deps.meta, logs);
    await addMetrics(
      deps.meta,
      [...counts].map(([key, count]) => {
        const [functionId, hour, kind, name] = key.split('\n') as [string, string, string, string];
        return { functionId, hour, kind, name, count };
      }),
    );
  }

  /**
   * A failed try: the run of failures began at the first failure after the last success on any
   * node (kept in the metadata store, so restarts and other nodes see the same clock).
   */
  async function failed(f: HogFunctionRecord, job: HogJob, lines: FunctionLog[]): Promise<void> {
    const now = deps.now().getTime();
    const since = new Date(await markFailing(deps.meta, f.id, deps.now().toISOString())).getTime();
    if (now - since < opts.disableAfterMs) return;
    await updateHogFunction(deps.meta, f.teamId, f.id, {
      enabled: false,
      failingSince: null,
      updatedAt: deps.now().toISOString(),
    });
    await dropJobs(deps.meta, f.id);
    const minutes = Math.round((now - since) / 60_000);
    lines.push(
      log(
        f,
        job,
        'ERROR',
        `Function disabled: every delivery failed for ${minutes} minutes. Fix the destination and enable it again.`,
      ),
    );
    metric(f.id, 'failure', 'disabled_permanently');
  }

  /** Backoff before try `attempt + 1`: doubled per try up to the cap, plus up to 20 % jitter. */
  const pauseAfter = (attempt: number) =>
    Math.min(opts.backoffMaxMs, opts.backoffMs * 2 ** (attempt - 1)) * (1 + Math.random() * 0.2);

  /** An action's Slack message: the stored request, with the same guard, retries and backoff. */
  async function runAction(job: HogJob): Promise<void> {
    const actionId = Number(job.functionId.slice(ACTION_JOB_PREFIX.length));
    const request = job.globals.request as OutgoingRequest;
    const attempt = job.attempts + 1;
    const say = (level: LogLevel, message: string) =>
      opts.onActionLog?.({ teamId: job.teamId, actionId, level, message });
    const host = (() => {
      try {
        return new URL(request.url).host;
      } catch {
        return 'an invalid URL';
      }
    })();
    const result = await deps.send(request);
    if (!result.error) {
      await finishJob(deps.meta, job.id, opts.owner);
      say('INFO', `Slack message for action ${actionId} to ${host} answered ${result.status}`);
      return;
    }
    if (result.retryable && attempt < opts.maxAttempts) {
      const pause = pauseAfter(attempt);
      say('WARN', `Slack message to ${host} failed (attempt ${attempt}): ${result.error}; retrying`);
      await retryJob(
        deps.meta,
        job.id,
        opts.owner,
        attempt,
        new Date(deps.now().getTime() + pause).toISOString(),
      );
      return;
    }
    await finishJob(deps.meta, job.id, opts.owner);
    say('ERROR', `Slack message for action ${actionId} to ${host} failed: ${result.error}`);
  }

  async function run(job: HogJob): Promise<void> {
    if (job.functionId.startsWith(ACTION_JOB_PREFIX)) return runAction(job);
    const f = await findHogFunction(deps.meta, job.teamId, job.functionId);
    if (!f?.enabled) {
      await finishJob(deps.meta, job.id, opts.owner);
      return;
    }
    const lines: FunctionLog[] = [];
    const attempt = job.attempts + 1;
    try {
      let request: Awaited<ReturnType<typeof buildRequest>>;
      try {
        request = await buildRequest(f, job.globals, deps.liquid);
      } catch (error) {
        // Liquid's workers were full (a burst, or hostile templates holding them): not the
        // template's fault, so the delivery is tried again like a 5xx.
        if (error instanceof TemplateBusyError && attempt < opts.maxAttempts) {
          const pause = pauseAfter(attempt);
          lines.push(
            log(
              f,
              job,
              'WARN',
              `Rendering the inputs failed (attempt ${attempt} of ${opts.maxAttempts}): ${error.message}; retrying in ${Math.round(pause)} ms`,
            ),
          );
          await retryJob(
            deps.meta,
            job.id,
            opts.owner,
            attempt,
            new Date(deps.now().getTime() + pause).toISOString(),
          );
          return;
        }
        lines.push(log(f, job, 'ERROR', `Rendering the inputs failed: ${(error as Error).message}`));
        await finishJob(deps.meta, job.id, opts.owner);
        metric(f.id, 'failure', 'failed');
        return;
      }
      const started = performance.now();
      const result = await deps.send(request);
      const ms = Math.round(performance.now() - started);
      const url = redact(f, request.url);
      if (result.truncated)
        lines.push(
          log(
            f,
            job,
            'WARN',
            `The answer from ${url} was longer than ${DELIVERY_MAX_ANSWER_BYTES / 1024 / 1024} MB: cut off there`,
          ),
        );
      if (!result.error) {
        lines.push(log(f, job, 'INFO', `${request.method} ${url} answered ${result.status} in ${ms} ms`));
        await finishJob(deps.meta, job.id, opts.owner);
        if (f.failingSince) await clearFailing(deps.meta, f.id);
        metric(f.id, 'success', 'succeeded');
        return;
      }
      const reason = redact(f, result.error);
      if (result.retryable && attempt < opts.maxAttempts) {
        const pause = pauseAfter(attempt);
        lines.push(
          log(
            f,
            job,
            'WARN',
            `${request.method} ${url} failed (attempt ${attempt} of ${opts.maxAttempts}): ${reason}; retrying in ${Math.round(pause)} ms`,
          ),
        );
        await retryJob(
          deps.meta,
          job.id,
          opts.owner,
          attempt,
          new Date(deps.now().getTime() + pause).toISOString(),
        );
      } else {
        const why = result.retryable ? `after ${attempt} attempts` : 'not retried';
        lines.push(log(f, job, 'ERROR', `${request.method} ${url} failed (${why}): ${reason}`));
        await finishJob(deps.meta, job.id, opts.owner);
        metric(f.id, 'failure', 'failed');
      }
      await failed(f, job, lines);
    } finally {
      pendingLogs.push(...lines);
    }
  }

  function start(job: HogJob): void {
    inFlight++;
    running.set(job.functionId, (running.get(job.functionId) ?? 0) + 1);
    const p = run(job)
      .catch((error: unknown) => opts.onError?.(error))
      .finally(() => {
        inFlight--;
        const n = (running.get(job.functionId) ?? 1) - 1;
        if (n <= 0) running.delete(job.functionId);
        else running.set(job.functionId, n);
        jobs.delete(p);
        nudge();
      });
    jobs.add(p);
  }

  async function tick(): Promise<void> {
    if (stopped) return;
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    try {
      // Bounded metrics: once an hour per node, counters older than they are kept go.
      const nowMs = deps.now().getTime();
      if (nowMs - prunedAt > 3_600_000) {
        prunedAt = nowMs;
        await pruneMetrics(deps.meta, new Date(nowMs - METRIC_HOURS_KEPT * 3_600_000).toISOString());
      }
      do {
        again = false;
        const free = opts.total - inFlight;
        if (free <= 0) break;
        const now = deps.now();
        const busy = [...running].filter(([, n]) => n >= opts.perFunction).map(([id]) => id);
        const taken = await claimJobs(deps.meta, opts.owner, {
          now: now.toISOString(),
          until: new Date(now.getTime() + opts.leaseMs).toISOString(),
          limit: free,
          busy,
        });
        for (const job of taken) {
          // Claimed before this destination filled up in this same pass: back to the queue.
          if ((running.get(job.functionId) ?? 0) >= opts.perFunction) {
            await retryJob(deps.meta, job.id, opts.owner, job.attempts, now.toISOString());
            continue;
          }
          start(job);
        }
        if (taken.length === free) again = true;
      } while (again && !stopped);
    } catch (error) {
      opts.onError?.(error);
    } finally {
      ticking = false;
    }
  }

  function nudge(): void {
    void tick();
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      void tick().finally(schedule);
    }, opts.pollMs);
    timer.unref?.();
  }
  schedule();
  nudge();
  const flusher = setInterval(() => {
    flush().catch((error: unknown) => opts.onError?.(error));
  }, opts.flushMs ?? 1000);
  flusher.unref?.();

  return {
    nudge,
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      await Promise.allSettled([...jobs]);
      clearInterval(flusher);
      await flush();
    },
  };
}
