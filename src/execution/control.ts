import type { Bus } from '../store/shared/bus.js';
import { QueryNotFoundError } from './errors.js';
import type { RunRegistry } from './registry.js';
import { isoSeconds, type QueryStatus, type StatusStore, touched } from './status.js';

export const CANCEL_CHANNEL = 'query-cancel';
export const CANCELLED_MESSAGE = 'Query was cancelled.';

interface CancelMessage {
  team_id: number;
  id: string;
  dequeue_only: boolean;
}

export interface StatusAnswer {
  httpStatus: 200 | 202 | 400 | 500;
  body: { query_status: QueryStatus };
}

/**
 * GET and DELETE /query/{id}/ for queries started on any node: statuses come from the shared store,
 * and a cancel is published on the bus so that the node running the query aborts it there.
 */
export class QueryControl {
  constructor(
    private readonly parts: { statuses: StatusStore; bus: Bus; registry: RunRegistry; now: () => Date },
  ) {}

  /** Listens for cancels from every node (the Redis bus delivers to its sender too). */
  async start(): Promise<void> {
    await this.parts.bus.subscribe(CANCEL_CHANNEL, (raw) => {
      const message = raw as CancelMessage | null;
      if (!message || typeof message.team_id !== 'number' || typeof message.id !== 'string') return;
      this.parts.registry.abort(message.team_id, message.id, message.dequeue_only === true);
    });
  }

  /** 202 running, 200 done, 400 failed with a message, 500 failed without; 404 unknown. */
  async status(teamId: number, id: string, showProgress: boolean): Promise<StatusAnswer> {
    const status = await this.parts.statuses.get(teamId, id);
    if (!status) throw new QueryNotFoundError(id);
    const shown = {
      ...status,
      query_progress: showProgress && !status.complete ? status.query_progress : null,
    };
    const httpStatus = !status.complete ? 202 : !status.error ? 200 : status.error_message ? 400 : 500;
    return { httpStatus, body: { query_status: shown } };
  }

  /**
   * Works for background queries (by status) and for blocking ones started with a client query id.
   * The status is marked cancelled here as well, so it says so even if the running node is gone.
   */
  async cancel(teamId: number, id: string, dequeueOnly: boolean): Promise<{ message: string }> {
    const { statuses, now } = this.parts;
    const status = await statuses.get(teamId, id);
    if (!status && !(await statuses.isRunning(teamId, id))) throw new QueryNotFoundError(id);
    if (status?.complete) return { message: 'Query already complete' };
    const message: CancelMessage = { team_id: teamId, id, dequeue_only: dequeueOnly };
    await this.parts.bus.publish(CANCEL_CHANNEL, message);
    if (dequeueOnly) return { message: 'Only tried to dequeue, not cancelling query on clickhouse' };
    if (status) {
      const cancelled = { ...status, complete: true, error: true, error_message: CANCELLED_MESSAGE };
      await statuses.set(touched({ ...cancelled, end_time: isoSeconds(now()), query_progress: null }, now()));
    }
    return { message: 'Cancelled query on clickhouse' };
  }
}
