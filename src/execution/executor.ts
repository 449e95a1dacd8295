import { QueryThrottledError } from './errors.js';

export interface ExecutorLimits {
  /** Engine queries running at once on this node. */
  concurrency: number;
  /** Queries one team may have queued or running on this node; more is a 429. */
  perTeam: number;
  /** What the 429 tells the client to wait. */
  retryAfterSeconds?: number;
}

export interface SubmitOptions {
  /** Aborting removes a queued task at once; a running task sees it through its own signal. */
  signal?: AbortSignal;
  /** Called when the task leaves the queue and starts (PostHog's pickup_time). */
  onStart?: () => void;
}

interface Job {
  run: () => void;
}

/**
 * Runs query work with a global bound on concurrency and a per-team bound on queued + running
 * work, first come first served. Limits are per node.
 */
export class QueryExecutor {
  private running = 0;
  private readonly queue: Job[] = [];
  private readonly perTeam = new Map<number, number>();

  constructor(private readonly limits: ExecutorLimits) {}

  /** Throws QueryThrottledError if `teamId` is at its limit. */
  assertCanAccept(teamId: number): void {
    if ((this.perTeam.get(teamId) ?? 0) >= this.limits.perTeam) {
      throw new QueryThrottledError(this.limits.retryAfterSeconds ?? 1);
    }
  }

  submit<T>(
    teamId: number,
    task: (signal: AbortSignal) => Promise<T>,
    options: SubmitOptions = {},
  ): Promise<T> {
    try {
      this.assertCanAccept(teamId);
    } catch (error) {
      return Promise.reject(error);
    }
    const signal = options.signal ?? new AbortController().signal;
    if (signal.aborted) return Promise.reject(signal.reason);
    this.perTeam.set(teamId, (this.perTeam.get(teamId) ?? 0) + 1);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        const at = this.queue.indexOf(job);
        if (at < 0) return; // already running: the task sees the signal itself
        this.queue.splice(at, 1);
        this.release(teamId);
        reject(signal.reason);
      };
      const job: Job = {
        run: () => {
          signal.removeEventListener('abort', onAbort);
          this.running++;
          options.onStart?.();
          new Promise<T>((done) => done(task(signal))).then(resolve, reject).finally(() => {
            this.running--;
            this.release(teamId);
            this.pump();
          });
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.push(job);
      this.pump();
    });
  }

  stats(): { running: number; queued: number; teams: number } {
    return { running: this.running, queued: this.queue.length, teams: this.perTeam.size };
  }

  private release(teamId: number) {
    const left = (this.perTeam.get(teamId) ?? 1) - 1;
    if (left <= 0) this.perTeam.delete(teamId);
    else this.perTeam.set(teamId, left);
  }

  private pump() {
    while (this.running < this.limits.concurrency && this.queue.length > 0) {
      this.queue.shift()!.run();
    }
  }
}
