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
  allEnabledHogFunctions,
  clearFailing,
  findHogFunction,
  type HogFunctionRecord,
  markFailing,
  updateHogFunction,
} from '../../store/meta/hog-functions.js';
import {
  claimDue,
  dropJobs,
  enqueueInvocations,
  enqueueLeased,
  finishJobs,
  type HogJob,
  type QueuedInvocation,
  queuedFunctionIds,
  releaseJobs,
  retryJob,
} from '../../store/meta/hog-queue.js';
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
  /**
   * Capture needs the event loop (capture-pressure.ts): while it does, deliveries start at most
   * `busyRate` a second on this node, so capture is not slowed by the deliveries it causes.
   */
  busy?: () => boolean;
  busyRate?: number;
}

export const DEFAULT_MAX_ATTEMPTS = 3;

/** Nudges within this many ms are one pass over the queue (completions come by thousands a second). */
const NUDGE_MS = 5;
/** Enabled destinations are read at most this often (a job of one created since is read on its own). */
const FUNCTIONS_TTL_MS = 1000;
/** A claimed job is started only while its lease has at least this long left (or a quarter of it). */
const LEASE_MARGIN_MS = 5000;

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
  let againFull = false;
  let timer: NodeJS.Timeout | undefined;
  let nudged: NodeJS.Timeout | undefined;
  let prunedAt = 0;
  let turn = 0;
  const jobs = new Set<Promise<void>>();
  /**
   * Jobs sent or failed for good, deleted together at the next pass: a statement per delivery
   * held SQLite's one connection, which capture shares. Until then they stay leased to this node
   * (their `next_at` is the lease's end), so nobody takes them; a node dying in between sends
   * them again once the lease ends (at least once).
   */
  let finished: number[] = [];
  const finish = (job: HogJob) => {
    finished.push(job.id);
  };
  async function deleteFinished(): Promise<void> {
    if (finished.length === 0) return;
    const ids = finished;
    finished = [];
    await finishJobs(deps.meta, ids, opts.owner);
  }

  /**
   * Enabled destinations, read once a second rather than once per job. A job whose destination is
   * not in the list (created on another node since the last read, or disabled) is looked up on
   * its own before it is dropped.
   */
  let functions: { at: number; byId: Map<string, HogFunctionRecord> } | null = null;
  async function destinationOf(job: HogJob): Promise<HogFunctionRecord | undefined> {
    const now = Date.now();
    if (!functions || now - functions.at > FUNCTIONS_TTL_MS) {
      const all = await allEnabledHogFunctions(deps.meta);
      functions = { at: now, byId: new Map(all.map((f) => [f.id, f])) };
    }
    const known = functions.byId.get(job.functionId);
    if (known) return known.teamId === job.teamId ? known : undefined;
    const found = await findHogFunction(deps.meta, job.teamId, job.functionId);
    if (found?.enabled) functions.byId.set(found.id, found);
    return found?.enabled ? found : undefined;
  }

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
    const failingSince = await markFailing(deps.meta, f.id, deps.now().toISOString());
    f.failingSince = failingSince;
    const since = new Date(failingSince).getTime();
    if (now - since < opts.disableAfterMs) return;
    await updateHogFunction(deps.meta, f.teamId, f.id, {
      enabled: false,
      failingSince: null,
      updatedAt: deps.now().toISOString(),
    });
    await dropJobs(deps.meta, f.id);
    functions?.byId.delete(f.id);
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

  /** Back to the queue after `attempt` tries, due once `pause` ms have passed. */
  const retryLater = (job: HogJob, attempt: number, pause: number) =>
    retryJob(deps.meta, job.id, opts.owner, attempt, new Date(deps.now().getTime() + pause).toISOString());

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
      finish(job);
      say('INFO', `Slack message for action ${actionId} to ${host} answered ${result.status}`);
      return;
    }
    if (result.retryable && attempt < opts.maxAttempts) {
      const pause = pauseAfter(attempt);
      say('WARN', `Slack message to ${host} failed (attempt ${attempt}): ${result.error}; retrying`);
      await retryLater(job, attempt, pause);
      return;
    }
    finish(job);
    say('ERROR', `Slack message for action ${actionId} to ${host} failed: ${result.error}`);
  }

  async function run(job: HogJob): Promise<void> {
    if (job.functionId.startsWith(ACTION_JOB_PREFIX)) return runAction(job);
    const f = await destinationOf(job);
    if (!f) {
      finish(job);
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
          await retryLater(job, attempt, pause);
          return;
        }
        lines.push(log(f, job, 'ERROR', `Rendering the inputs failed: ${(error as Error).message}`));
        finish(job);
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
        finish(job);
        if (f.failingSince) {
          f.failingSince = null;
          await clearFailing(deps.meta, f.id);
        }
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
        await retryLater(job, attempt, pause);
      } else {
        const why = result.retryable ? `after ${attempt} attempts` : 'not retried';
        lines.push(log(f, job, 'ERROR', `${request.method} ${url} failed (${why}): ${reason}`));
        finish(job);
        metric(f.id, 'failure', 'failed');
      }
      await failed(f, job, lines);
    } finally {
      pendingLogs.push(...lines);
    }
  }

  /**
   * Jobs claimed and not started yet, per destination: each claim takes up to twice the
   * destination's concurrency, and the next one is started as soon as one finishes, without a
   * statement. The queue is asked again only once a destination holds no more than its
   * concurrency, so claims come by the batch, not one per delivery.
   */
  const waiting = new Map<string, Array<{ job: HogJob; leasedUntil: number }>>();
  let waitingCount = 0;
  const margin = Math.min(LEASE_MARGIN_MS, opts.leaseMs / 4);
  const held = (functionId: string) =>
    (running.get(functionId) ?? 0) + (waiting.get(functionId)?.length ?? 0);

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
        pump();
        if (held(job.functionId) <= opts.perFunction) nudge();
      });
    jobs.add(p);
  }

  /**
   * Starts waiting jobs while this node has room, one per destination per round so that none
   * waits behind another's backlog. A job whose lease is about to end is let go instead (it is
   * due again when the lease ends, for any node), so two nodes never send it at once.
   */
  function pump(): void {
    let started = true;
    while (started && !stopped && inFlight < opts.total && waitingCount > 0) {
      started = false;
      for (const [functionId, list] of waiting) {
        if (inFlight >= opts.total) break;
        if ((running.get(functionId) ?? 0) >= opts.perFunction) continue;
        if (!mayStart()) return;
        const next = list.shift();
        if (list.length === 0) waiting.delete(functionId);
        if (!next) continue;
        waitingCount--;
        started = true;
        if (next.leasedUntil - Date.now() < margin) continue;
        start(next.job);
      }
    }
  }

  /**
   * Pacing while capture is busy: a token per `1 / busyRate` s, at most a second's worth saved.
   * Out of tokens, the waiting jobs are looked at again when the next one is due.
   */
  const busyRate = Math.max(1, opts.busyRate ?? 100);
  let tokens = busyRate;
  let tokensAt = Date.now();
  let paced: NodeJS.Timeout | undefined;
  function mayStart(): boolean {
    const now = Date.now();
    tokens = Math.min(busyRate, tokens + ((now - tokensAt) * busyRate) / 1000);
    tokensAt = now;
    if (!opts.busy?.()) return true;
    if (tokens >= 1) {
      tokens--;
      return true;
    }
    if (!paced) {
      paced = setTimeout(
        () => {
          paced = undefined;
          pump();
        },
        Math.ceil(1000 / busyRate),
      );
      paced.unref?.();
    }
    return false;
  }

  /** Jobs claimed and never started (the node stops): due again now, for any node. */
  async function releaseWaiting(): Promise<void> {
    const ids = [...waiting.values()].flatMap((list) => list.map((w) => w.job.id));
    waiting.clear();
    waitingCount = 0;
    if (ids.length > 0) await releaseJobs(deps.meta, ids, opts.owner, deps.now().toISOString());
  }

  /**
   * Destinations seen with queued jobs, and those whose last claim found fewer due jobs than it
   * asked for: a pass started by a finished delivery claims only for known destinations not
   * drained; the poll's pass lists the destinations again (a skip scan) and forgets `drained`
   * (retries come due with time).
   */
  const known = new Set<string>();
  const drained = new Set<string>();

  /**
   * One pass: finished jobs leave the queue, then each destination that holds no more than its
   * concurrency gets its due jobs claimed, oldest first, up to twice its concurrency; then
   * waiting jobs start. The destinations are visited from a different one each pass, so none
   * waits behind the others.
   */
  async function tick(full: boolean): Promise<void> {
    if (stopped) return;
    if (ticking) {
      again = true;
      againFull ||= full;
      return;
    }
    ticking = true;
    try {
      do {
        again = false;
        await deleteFinished();
        // Bounded metrics: once an hour per node, counters older than they are kept go.
        const nowMs = deps.now().getTime();
        if (nowMs - prunedAt > 3_600_000) {
          prunedAt = nowMs;
          await pruneMetrics(deps.meta, new Date(nowMs - METRIC_HOURS_KEPT * 3_600_000).toISOString());
        }
        if (full || againFull) {
          againFull = false;
          drained.clear();
          known.clear();
          for (const id of await queuedFunctionIds(deps.meta)) known.add(id);
        }
        const ids = [...known].filter((id) => !drained.has(id));
        const now = deps.now();
        const until = new Date(now.getTime() + opts.leaseMs);
        turn = (turn + 1) % Math.max(1, ids.length);
        for (let i = 0; i < ids.length && !stopped; i++) {
          // This node holds at most twice its total concurrency in claimed jobs.
          if (inFlight + waitingCount >= 2 * opts.total) break;
          const functionId = ids[(turn + i) % ids.length]!;
          const has = held(functionId);
          if (has > opts.perFunction) continue;
          const limit = 2 * opts.perFunction - has;
          const taken = await claimDue(deps.meta, opts.owner, {
            now: now.toISOString(),
            until: until.toISOString(),
            functionId,
            limit,
          });
          if (taken.length < limit) drained.add(functionId);
          hold(taken, until.getTime());
        }
      } while (again && !stopped);
    } catch (error) {
      opts.onError?.(error);
    } finally {
      ticking = false;
    }
  }

  function hold(taken: HogJob[], leasedUntil: number): void {
    for (const job of taken) {
      const list = waiting.get(job.functionId) ?? [];
      list.push({ job, leasedUntil });
      waiting.set(job.functionId, list);
      waitingCount++;
    }
    pump();
  }

  /**
   * Queues matched invocations. Those this node has room for (a destination holding less than
   * twice its concurrency) are written already leased to it and start at once, with no claim;
   * the rest are written free, for any node's next pass.
   */
  async function enqueue(queued: QueuedInvocation[], now: Date): Promise<void> {
    const mine: QueuedInvocation[] = [];
    const rest: QueuedInvocation[] = [];
    const planned = new Map<string, number>();
    for (const job of queued) {
      const more = planned.get(job.functionId) ?? 0;
      const room =
        !stopped &&
        held(job.functionId) + more < 2 * opts.perFunction &&
        inFlight + waitingCount + mine.length < 2 * opts.total;
      if (room) {
        mine.push(job);
        planned.set(job.functionId, more + 1);
      } else rest.push(job);
    }
    if (rest.length > 0) {
      await enqueueInvocations(deps.meta, rest, now.toISOString());
      for (const job of rest) {
        known.add(job.functionId);
        drained.delete(job.functionId);
      }
      nudge();
    }
    if (mine.length > 0) {
      const until = new Date(now.getTime() + opts.leaseMs);
      const written = await enqueueLeased(deps.meta, mine, now.toISOString(), {
        owner: opts.owner,
        until: until.toISOString(),
      });
      hold(written, until.getTime());
    }
  }

  /** Looks at the queue soon: nudges close together are one pass. */
  function nudge(): void {
    if (nudged || stopped) return;
    nudged = setTimeout(() => {
      nudged = undefined;
      void tick(false);
    }, NUDGE_MS);
    nudged.unref?.();
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      void tick(true).finally(schedule);
    }, opts.pollMs);
    timer.unref?.();
  }
  schedule();
  void tick(true);
  const flusher = setInterval(() => {
    flush().catch((error: unknown) => opts.onError?.(error));
  }, opts.flushMs ?? 1000);
  flusher.unref?.();

  return {
    /** Other nodes' or free jobs may be waiting: look soon (a full pass). */
    nudge: () => {
      againFull = true;
      nudge();
    },
    enqueue,
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (nudged) clearTimeout(nudged);
      if (paced) clearTimeout(paced);
      await Promise.allSettled([...jobs]);
      await releaseWaiting();
      clearInterval(flusher);
      await deleteFinished();
      await flush();
    },
  };
}
