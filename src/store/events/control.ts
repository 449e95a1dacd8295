import type { ClickHouseClient } from '@clickhouse/client';

/**
 * Finding and stopping running engine queries by a caller-chosen marker.
 *
 * chDB cannot be given a query_id, and its parameter binding re-prints the SQL without comments,
 * so the marker travels as the `log_comment` setting, which both engines keep in
 * `system.processes.Settings`. On chDB a `SET` sticks to the session, which is why every statement
 * the store runs sets `log_comment` (to '' when unmarked) and matching also requires
 * `query_kind = 'Select'`: an insert that inherited a stale comment is never a target.
 * Control statements carry the marker inline (it is checked against a strict alphabet) because
 * chDB serialises every parameterised call process-wide: a bound KILL would queue behind its victim.
 */
export interface EngineProcess {
  marker: string;
  query_id: string;
  elapsed_ms: number;
  rows_read: number;
  bytes_read: number;
  total_rows_approx: number;
  memory_usage: number;
  cpu_time_us: number;
}

const MARKER = /^[A-Za-z0-9_-]{1,200}$/;

export function assertMarker(marker: string): void {
  if (!MARKER.test(marker)) throw new Error(`invalid query marker ${JSON.stringify(marker)}`);
}

const predicate = (marker: string) => `Settings['log_comment'] = '${marker}' AND query_kind = 'Select'`;

export interface EngineControl {
  cancel(marker: string): Promise<number>;
  running(marker: string): Promise<EngineProcess[]>;
  close(): Promise<void>;
}

/**
 * `client()` gives the connection control statements go through: on chDB a second session (queries
 * on one session run one at a time, so a KILL on the busy one would wait for its victim).
 */
export function engineControl(
  client: () => ClickHouseClient,
  closeClient: () => Promise<void>,
): EngineControl {
  const rows = async <T>(sql: string) =>
    (await client().query({ query: sql, format: 'JSONEachRow' })).json<T>();
  return {
    async cancel(marker) {
      assertMarker(marker);
      // Never SYNC: on chDB a synchronous KILL does not return and blocks process exit.
      return (await rows(`KILL QUERY WHERE ${predicate(marker)}`)).length;
    },
    async running(marker) {
      assertMarker(marker);
      return rows<EngineProcess>(
        `SELECT Settings['log_comment'] AS marker, query_id, toUInt64(elapsed * 1000) AS elapsed_ms,
                read_rows AS rows_read, read_bytes AS bytes_read, total_rows_approx, memory_usage,
                ProfileEvents['OSCPUVirtualTimeMicroseconds'] AS cpu_time_us
           FROM system.processes WHERE ${predicate(marker)}
         SETTINGS output_format_json_quote_64bit_integers = 0`,
      );
    },
    close: closeClient,
  };
}

/**
 * Runs `start` and, if `signal` aborts first, rejects at once and keeps asking the engine to stop
 * the marked query until the engine call settles: a query still waiting for its session is not in
 * `system.processes` yet, so a single KILL could miss it. `afterKill` runs once a killed query has
 * settled (chDB lists a killed query until its session runs another statement).
 */
export function untilSettledOrKilled<T>(
  start: () => Promise<T>,
  signal: AbortSignal,
  kill: () => Promise<unknown>,
  afterKill: () => Promise<unknown> = async () => {},
): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  const engine = start();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let killed = false;
    const onAbort = () => {
      killed = true;
      reject(abortReason(signal));
      const deadline = Date.now() + 60_000;
      const loop = async () => {
        for (let delay = 0; !settled && Date.now() < deadline; delay = Math.min(delay * 2 + 50, 2_000)) {
          await kill().catch(() => {});
          await new Promise((r) => setTimeout(r, delay).unref());
        }
      };
      void loop();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (killed) void afterKill().catch(() => {});
    };
    engine.then(
      (value) => {
        done();
        resolve(value);
      },
      (error) => {
        done();
        reject(error);
      },
    );
  });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new Error('The query was aborted');
}
