import { FairQueue } from './fair-queue.js';

/**
 * Where a statement runs. Each lane has its own engine sessions, so work in one never waits for
 * another: capture's inserts never queue behind a query, and batch exports never take a slot
 * from interactive queries.
 */
export type LaneName = 'write' | 'query' | 'export';

export const LANE_NAMES: readonly LaneName[] = ['write', 'query', 'export'];

export interface LaneLimits {
  /** Sessions (statements at once). */
  sessions: number;
  /** Statements at once for one project. */
  share: number;
}

/** Who a statement runs for: a project id, or 0 for Burrow's own work. */
export type LaneKey = number;

/**
 * A set of sessions handed out fairly by project (FairQueue). A session runs one statement at a
 * time and is handed back only when the engine has settled the statement and, if it failed, once
 * `drain` has run on it: on chDB the rows a failed or killed statement had produced come out of
 * the next statement on the same session (bench/engine-facts.ts), whatever project it runs for.
 */
export class Lane<S extends object> {
  private readonly free: S[];
  private readonly queue: FairQueue<LaneKey>;

  constructor(
    readonly name: LaneName,
    sessions: readonly S[],
    share: number,
    /** Empties a session after a failure; resolves with the session to reuse (itself or a new one). */
    private readonly drain: (session: S) => Promise<S>,
  ) {
    if (sessions.length === 0) throw new Error(`lane ${name} has no session`);
    this.free = [...sessions];
    this.queue = new FairQueue({ capacity: sessions.length, share: Math.min(share, sessions.length) });
  }

  /**
   * Runs `statement` on a session of this lane once one is free for `key`. Aborting `signal` while
   * waiting leaves the line; once running, the statement's own cancellation applies (the session
   * stays taken until the engine has settled it).
   */
  async run<T>(key: LaneKey, statement: (session: S) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.queue.acquire(key, signal);
    let session: S = this.free.pop()!;
    let failed = true;
    try {
      const value = await statement(session);
      failed = false;
      return value;
    } finally {
      // A killed statement can also settle as a success with part of its rows, the rest still
      // queued on the session: drained as a failure is.
      if (failed || signal?.aborted) session = await this.drain(session);
      this.free.push(session);
      release();
    }
  }

  stats() {
    return this.queue.stats();
  }
}
