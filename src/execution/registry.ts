import { QueryCancelledError } from './errors.js';

/** A calculation running (or queued) on this node that a cancel can abort. */
export interface LocalRun {
  controller: AbortController;
  /** Left the executor queue: `dequeue_only` no longer stops it. */
  started: boolean;
}

/** Calculations of this node by team and query id, so a cancel heard on the bus can abort them. */
export class RunRegistry {
  private readonly runs = new Map<string, Set<LocalRun>>();

  /** `signal` (e.g. the HTTP client going away) aborts the run too. */
  register(teamId: number, id: string, signal?: AbortSignal): LocalRun {
    const run: LocalRun = { controller: new AbortController(), started: false };
    if (signal?.aborted) run.controller.abort(signal.reason);
    else signal?.addEventListener('abort', () => run.controller.abort(signal.reason), { once: true });
    const key = `${teamId}:${id}`;
    const runs = this.runs.get(key) ?? new Set();
    runs.add(run);
    this.runs.set(key, runs);
    return run;
  }

  unregister(teamId: number, id: string, run: LocalRun): void {
    const key = `${teamId}:${id}`;
    const runs = this.runs.get(key);
    runs?.delete(run);
    if (runs?.size === 0) this.runs.delete(key);
  }

  /** With `dequeueOnly`, runs that already left the queue are left alone. */
  abort(teamId: number, id: string, dequeueOnly: boolean): void {
    for (const run of this.runs.get(`${teamId}:${id}`) ?? []) {
      if (dequeueOnly && run.started) continue;
      run.controller.abort(new QueryCancelledError());
    }
  }

  abortAll(): void {
    for (const runs of this.runs.values())
      for (const run of runs) run.controller.abort(new QueryCancelledError());
    this.runs.clear();
  }
}
