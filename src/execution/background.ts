import { randomUUID } from 'node:crypto';
import { ApiError } from '../errors.js';
import type { EngineProcess } from '../store/events/store.js';
import { CANCELLED_MESSAGE } from './control.js';
import { isCancelled } from './errors.js';
import type { QueryExecutor } from './executor.js';
import { engineMarker } from './marker.js';
import type { LocalRun, RunRegistry } from './registry.js';
import type { SingleFlight } from './single-flight.js';
import {
  isoSeconds,
  newStatus,
  type QueryProgress,
  type QueryStatus,
  type StatusStore,
  touched,
} from './status.js';

export interface BackgroundParts {
  statuses: StatusStore;
  executor: QueryExecutor;
  flight: SingleFlight;
  registry: RunRegistry;
  events: { running(marker: string): Promise<EngineProcess[]> };
  now: () => Date;
  /** The message a failed background query may show; null hides it (PostHog: exposed errors only). */
  exposeError?: (error: unknown) => string | null;
  /**
   * Told of a failure whose status hides its message (GET answers it with a bare 500), so that it
   * is in the log under the query's id.
   */
  onHiddenError?: (error: unknown, query: { teamId: number; queryId: string }) => void;
  /** How often a running background query's engine progress is written to its status. */
  progressIntervalMs?: number;
}

export interface EnqueueRequest {
  team: { id: number };
  insightId?: number | null;
  dashboardId?: number | null;
  labels?: string[] | null;
}

/** Calculates and returns what the finished status carries as `results`. */
export type BackgroundWork = (signal: AbortSignal, onStart: () => void) => Promise<unknown>;

/** ApiErrors under 500 and errors marked `exposed` (HogQL syntax/query errors) may be shown. */
export function defaultExposeError(error: unknown): string | null {
  if (error instanceof ApiError) return error.status < 500 ? error.detail : null;
  if (error instanceof Error && (error as { exposed?: unknown }).exposed === true) return error.message;
  return null;
}

function sumProgress(processes: EngineProcess[]): QueryProgress {
  const sum = (pick: (p: EngineProcess) => number) =>
    processes.reduce((total, p) => total + (pick(p) || 0), 0);
  return {
    bytes_read: sum((p) => p.bytes_read),
    rows_read: sum((p) => p.rows_read),
    estimated_rows_total: sum((p) => p.total_rows_approx),
    time_elapsed: Math.round(Math.max(0, ...processes.map((p) => p.elapsed_ms)) / 1000),
    active_cpu_time: sum((p) => p.cpu_time_us),
  };
}

/** Background calculations: a status written at once, then updated at pickup, while running and at the end. */
export class BackgroundQueries {
  /** Background calculations running on this node, by cache key: what a cache miss may report. */
  private readonly byCacheKey = new Map<string, { teamId: number; queryId: string }>();

  constructor(private readonly parts: BackgroundParts) {}

  /** The status of a background calculation of `cacheKey` for the team still running on this node. */
  async runningFor(teamId: number, cacheKey: string): Promise<QueryStatus | null> {
    const running = this.byCacheKey.get(cacheKey);
    if (!running || running.teamId !== teamId) return null;
    const status = await this.parts.statuses.get(teamId, running.queryId);
    return status && !status.complete ? status : null;
  }

  /**
   * Starts `work` under `queryId` unless a calculation with that id is still running (its status is
   * returned instead). Throws QueryThrottledError, before writing anything, if the team is at its
   * limit and the work is not already in flight on this node.
   */
  async enqueue(request: EnqueueRequest, cacheKey: string, queryId: string, work: BackgroundWork) {
    const { statuses, now } = this.parts;
    const teamId = request.team.id;
    const existing = await statuses.get(teamId, queryId);
    if (existing && !existing.complete) return existing;
    const joining = this.parts.flight.has(cacheKey);
    if (!joining) this.parts.executor.assertCanAccept(teamId);
    const status = newStatus(
      {
        id: queryId,
        team_id: teamId,
        insight_id: request.insightId ?? null,
        dashboard_id: request.dashboardId ?? null,
        labels: request.labels ?? null,
        task_id: randomUUID(),
      },
      now(),
    );
    // Registered before the status exists, so a cancel can never find the status but miss the run.
    const run = this.parts.registry.register(teamId, queryId);
    try {
      await statuses.set(status);
    } catch (error) {
      this.parts.registry.unregister(teamId, queryId, run);
      throw error;
    }
    const entry = { teamId, queryId };
    this.byCacheKey.set(cacheKey, entry);
    void this.run(status, run, joining, work).finally(() => {
      if (this.byCacheKey.get(cacheKey) === entry) this.byCacheKey.delete(cacheKey);
    });
    return { ...status };
  }

  private async run(status: QueryStatus, run: LocalRun, joining: boolean, work: BackgroundWork) {
    const { statuses, now } = this.parts;
    let finished = false;
    let progress: NodeJS.Timeout | undefined;
    // Writes unless the query already ended, here or by a cancel on another node.
    const save = async (patch: Partial<QueryStatus>) => {
      const current = await statuses.get(status.team_id, status.id);
      if (current?.complete || (finished && !patch.complete)) return;
      await statuses.set(touched({ ...status, ...patch }, now()));
    };
    const onStart = () => {
      run.started = true;
      status.pickup_time = isoSeconds(now());
      void save({}).catch(() => {});
      progress = setInterval(
        () => void this.pollProgress(status, save),
        this.parts.progressIntervalMs ?? 1000,
      );
      progress.unref();
    };
    if (joining) onStart();
    let final: Partial<QueryStatus>;
    try {
      final = { complete: true, error: false, results: await work(run.controller.signal, onStart) };
    } catch (error) {
      const expose = this.parts.exposeError ?? defaultExposeError;
      const message = isCancelled(error) ? CANCELLED_MESSAGE : expose(error);
      if (message === null) this.parts.onHiddenError?.(error, { teamId: status.team_id, queryId: status.id });
      final = { complete: true, error: true, error_message: message, results: null };
    } finally {
      clearInterval(progress);
      this.parts.registry.unregister(status.team_id, status.id, run);
    }
    finished = true;
    await save({ ...final, end_time: isoSeconds(now()), query_progress: null }).catch(() => {});
  }

  private async pollProgress(status: QueryStatus, save: (patch: Partial<QueryStatus>) => Promise<void>) {
    try {
      const processes = await this.parts.events.running(engineMarker(status.team_id, status.id));
      if (processes.length > 0) await save({ query_progress: sumProgress(processes) });
    } catch {
      // Progress is best effort; the query reports its own failure.
    }
  }
}
