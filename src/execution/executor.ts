import { FairQueue } from '../store/events/fair-queue.js';
import { QueryThrottledError } from './errors.js';

export interface ExecutorLimits {
  /** Engine queries running at once on this node. */
  concurrency: number;
  /** Queries one team may have queued or running on this node; more is a 429. */
  perTeam: number;
  /**
   * Queries one team may have running at once (kept below `concurrency`, so another project always
   * finds a free slot). Unset: no share, only `concurrency`.
   */
  share?: number;
  /** What the 429 tells the client to wait. */
  retryAfterSeconds?: number;
}

export interface SubmitOptions {
  /** Aborting removes a queued task at once; a running task sees it through its own signal. */
  signal?: AbortSignal;
  /** Called when the task leaves the queue and starts (PostHog's pickup_time). */
  onStart?: () => void;
}

/**
 * Runs query work with a global bound on concurrency, a per-team bound on running work (its
 * share) and a per-team bound on queued + running work (429 beyond it). Teams waiting are served
 * round-robin, so one team's backlog never delays another team's query by more than one slot
 * turnover. Limits are per node; the events store shares its sessions the same way.
 */
export class QueryExecutor {
  private running = 0;
  private readonly queue: FairQueue<number>;
  private readonly perTeam = new Map<number, number>();

  constructor(private readonly limits: ExecutorLimits) {
    const share =
      limits.share === undefined
        ? limits.concurrency
        : Math.max(1, Math.min(limits.share, limits.concurrency - 1));
    this.queue = new FairQueue({ capacity: limits.concurrency, share });
  }

  /** Throws QueryThrottledError if `teamId` is at its limit. */
  assertCanAccept(teamId: number): void {
    if ((this.perTeam.get(teamId) ?? 0) >= this.limits.perTeam) {
      throw new QueryThrottledError(this.limits.retryAfterSeconds ?? 1);
    }
  }

  async submit<T>(
    teamId: number,
    task: (signal: AbortSignal) => Promise<T>,
    options: SubmitOptions = {},
  ): Promise<T> {
    this.assertCanAccept(teamId);
    const signal = options.signal ?? new AbortController().signal;
    if (signal.aborted) throw signal.reason;
    this.perTeam.set(teamId, (this.perTeam.get(teamId) ?? 0) + 1);
    try {
      const release = await this.queue.acquire(teamId, signal);
      this.running++;
      try {
        options.onStart?.();
        return await task(signal);
      } finally {
        this.running--;
        release();
      }
    } finally {
      this.release(teamId);
    }
  }

  stats(): { running: number; queued: number; teams: number } {
    return { running: this.running, queued: this.queue.stats().waiting, teams: this.perTeam.size };
  }

  private release(teamId: number) {
    const left = (this.perTeam.get(teamId) ?? 1) - 1;
    if (left <= 0) this.perTeam.delete(teamId);
    else this.perTeam.set(teamId, left);
  }
}
