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
  findHogFunction,
  type HogFunctionRecord,
  updateHogFunction,
} from '../../store/meta/hog-functions.js';
import { claimJobs, dropJobs, finishJob, type HogJob, retryJob } from '../../store/meta/hog-queue.js';
import { hourOf } from './enqueue.js';
import { buildRequest, DELIVERY_MAX_ANSWER_BYTES, redact, type Sender } from './service.js';

export interface WorkerDeps {
  meta: MetaDb;
  now: () => Date;
  send: Sender;
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
  /** Per destination: when its current run of failures began (this node's view). */
  const failingSince = new Map<string, number>();

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

  async function failed(f: HogFunctionRecord, job: HogJob, lines: FunctionLog[]): Promise<void> {
    const now = deps.now().getTime();
    const since = failingSince.get(f.id) ?? now;
    failingSince.set(f.id, since);
    if (now - since < opts.disableAfterMs) return;
    failingSince.delete(f.id);
    await updateHogFunction(deps.meta, f.teamId, f.id, {
      enabled: false,
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

  async function run(job: HogJob): Promise<void> {
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
        request = await buildRequest(f, job.globals);
      } catch (error) {
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
        failingSince.delete(f.id);
        metric(f.id, 'success', 'succeeded');
        return;
      }
      const reason = redact(f, result.error);
      if (result.retryable && attempt < opts.maxAttempts) {
        const pause =
          Math.min(opts.backoffMaxMs, opts.backoffMs * 2 ** (attempt - 1)) * (1 + Math.random() * 0.2);
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
