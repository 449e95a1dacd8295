import { LRUCache } from 'lru-cache';

/** Engine work of a running query, summed over its engine queries (PostHog's ClickhouseQueryProgress). */
export interface QueryProgress {
  bytes_read: number;
  rows_read: number;
  estimated_rows_total: number;
  time_elapsed: number;
  active_cpu_time: number;
}

/** PostHog's QueryStatus, as GET /query/{id}/ and 202 responses show it. */
export interface QueryStatus {
  id: string;
  team_id: number;
  query_async: true;
  /** True once finished, also when it failed or was cancelled. */
  complete: boolean;
  error: boolean;
  /** Only messages safe to show (exposed HogQL/engine errors, cancellation); null otherwise. */
  error_message: string | null;
  /** The full response (results plus cache fields) once complete without error. */
  results: unknown;
  start_time: string | null;
  pickup_time: string | null;
  end_time: string | null;
  expiration_time: string | null;
  query_progress: QueryProgress | null;
  dashboard_id: number | null;
  insight_id: number | null;
  labels: string[] | null;
  task_id: string | null;
}

/** Statuses live this long after their last write, as in PostHog. */
export const STATUS_TTL_MS = 20 * 60_000;

/** PostHog's datetime format in query responses: UTC, whole seconds, `Z`. */
export const isoSeconds = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The status with its expiry pushed to 20 minutes from `now` (done on every write, as PostHog does). */
export const touched = (status: QueryStatus, now: Date): QueryStatus => ({
  ...status,
  expiration_time: isoSeconds(new Date(now.getTime() + STATUS_TTL_MS)),
});

export function newStatus(
  fields: Pick<QueryStatus, 'id' | 'team_id'> & Partial<QueryStatus>,
  now: Date,
): QueryStatus {
  return {
    query_async: true,
    complete: false,
    error: false,
    error_message: null,
    results: null,
    start_time: isoSeconds(now),
    pickup_time: null,
    end_time: null,
    expiration_time: isoSeconds(new Date(now.getTime() + STATUS_TTL_MS)),
    query_progress: null,
    dashboard_id: null,
    insight_id: null,
    labels: null,
    task_id: null,
    ...fields,
  };
}

/**
 * Statuses of background queries, and a registry of blocking ones that are running (so any node
 * can tell whether a query id exists before cancelling it). Memory or Redis.
 */
export interface StatusStore {
  kind: 'memory' | 'redis';
  get(teamId: number, id: string): Promise<QueryStatus | null>;
  /** Writes the status; it expires at its `expiration_time` (see `touched`). */
  set(status: QueryStatus): Promise<void>;
  delete(teamId: number, id: string): Promise<void>;
  /** Marks a blocking (status-less) query as running until `untilMs` (epoch ms) or `clearRunning`. */
  markRunning(teamId: number, id: string, untilMs: number): Promise<void>;
  clearRunning(teamId: number, id: string): Promise<void>;
  isRunning(teamId: number, id: string): Promise<boolean>;
  close(): Promise<void>;
}

export const statusKey = (teamId: number, id: string) => `query_async:${teamId}:${id}`;
export const runningKey = (teamId: number, id: string) => `query_running:${teamId}:${id}`;

const expiresAt = (status: QueryStatus, now: Date) =>
  status.expiration_time ? Date.parse(status.expiration_time) : now.getTime() + STATUS_TTL_MS;

/** Bounded by bytes like the cache: statuses carry results. */
export function memoryStatusStore(maxBytes: number, now: () => Date = () => new Date()): StatusStore {
  const lru = new LRUCache<string, { json: string; until: number }>({
    maxSize: maxBytes,
    sizeCalculation: (value, key) => Buffer.byteLength(value.json) + key.length,
  });
  const read = (key: string) => {
    const item = lru.get(key);
    if (!item) return null;
    if (item.until <= now().getTime()) {
      lru.delete(key);
      return null;
    }
    return item.json;
  };
  return {
    kind: 'memory',
    async get(teamId, id) {
      const json = read(statusKey(teamId, id));
      return json === null ? null : (JSON.parse(json) as QueryStatus);
    },
    async set(status) {
      lru.set(statusKey(status.team_id, status.id), {
        json: JSON.stringify(status),
        until: expiresAt(status, now()),
      });
    },
    async delete(teamId, id) {
      lru.delete(statusKey(teamId, id));
    },
    async markRunning(teamId, id, untilMs) {
      lru.set(runningKey(teamId, id), { json: '1', until: untilMs });
    },
    async clearRunning(teamId, id) {
      lru.delete(runningKey(teamId, id));
    },
    async isRunning(teamId, id) {
      return read(runningKey(teamId, id)) !== null;
    },
    async close() {
      lru.clear();
    },
  };
}
