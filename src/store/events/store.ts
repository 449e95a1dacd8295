import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import {
  assertMarker,
  type EngineControl,
  type EngineProcess,
  engineControl,
  untilSettledOrKilled,
} from './control.js';
import { migrateEvents } from './migrate.js';

export type { EngineProcess } from './control.js';

export type EventsBackend = 'chdb' | 'clickhouse';

export interface QueryOptions {
  params?: Record<string, unknown>;
  settings?: Record<string, string | number | boolean>;
  signal?: AbortSignal;
  /**
   * Tags the engine query (`[A-Za-z0-9_-]`) so `cancel(marker)` can stop it from anywhere; with a
   * `signal` too, aborting kills the engine work instead of only rejecting the promise.
   */
  marker?: string;
}

/**
 * The only door to the analytics engine. Everything else talks to this interface, never to chDB or
 * @clickhouse/client, so that embedded and server modes differ only in the connection.
 */
export interface EventsStore {
  backend: EventsBackend;
  database: string;
  /** Fully qualified, quoted name of a table in Burrow's database. */
  table(name: string): string;
  query<T = Record<string, unknown>>(sql: string, options?: QueryOptions): Promise<T[]>;
  /** Rows as arrays with the engine's column names and types (duplicate names survive). */
  queryRows(sql: string, options?: QueryOptions): Promise<RowsResult>;
  command(sql: string, options?: QueryOptions): Promise<void>;
  insert(table: string, rows: readonly object[]): Promise<void>;
  /** Asks the engine to stop every running query tagged `marker`; resolves with how many it found. */
  cancel(marker: string): Promise<number>;
  /** Engine queries tagged `marker` that are still running, with their progress. */
  running(marker: string): Promise<EngineProcess[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface RowsResult {
  columns: Array<{ name: string; type: string }>;
  rows: unknown[][];
}

export interface EventsStoreOptions {
  dataDir: string;
  clickhouseUrl?: string | undefined;
  database: string;
}

function quoteIdentifier(name: string): string {
  return '`' + name.replace(/\\/g, '\\\\').replace(/`/g, '\\`') + '`';
}

/**
 * chDB and a ClickHouse server disagree on how JSON carries 64-bit integers (numbers vs strings);
 * both are pinned to numbers so results look the same whichever backend runs. A caller that needs
 * exact values above 2^53 asks for strings per query.
 */
const DEFAULT_SETTINGS = { output_format_json_quote_64bit_integers: 0 } as const;

function wrap(
  client: ClickHouseClient,
  backend: EventsBackend,
  database: string,
  control: EngineControl,
): EventsStore {
  // log_comment is always set: on chDB settings stick to the session (see control.ts).
  const clickhouseSettings = (o?: QueryOptions) =>
    ({ ...DEFAULT_SETTINGS, ...o?.settings, log_comment: o?.marker ?? '' }) as Parameters<
      ClickHouseClient['query']
    >[0]['clickhouse_settings'];
  // chDB (3.4) hands rows a failed query had already produced to the next query on the session,
  // whichever team it runs for. Queries therefore run one at a time on chDB (the session does so
  // anyway) and a failure is drained with a throwaway statement before the next one starts.
  let tail: Promise<void> = Promise.resolve();
  async function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (backend !== 'chdb') return fn();
    const previous = tail;
    let release = () => {};
    tail = new Promise((resolve) => {
      release = resolve;
    });
    await previous;
    try {
      return await fn();
    } finally {
      release();
    }
  }
  const drain = async () => {
    if (backend !== 'chdb') return;
    await client
      .query({ query: 'SELECT 1', format: 'JSONEachRow' })
      .then((r) => r.json())
      .catch(() => {});
  };

  async function query<T>(
    sql: string,
    o: QueryOptions | undefined,
    format: 'JSONEachRow' | 'JSONCompactEachRowWithNamesAndTypes',
  ): Promise<T[]> {
    const marker = o?.marker;
    if (marker !== undefined) assertMarker(marker);
    const run = async (signal?: AbortSignal) => {
      const result = await client.query({
        query: sql,
        format,
        query_params: o?.params,
        clickhouse_settings: clickhouseSettings(o),
        abort_signal: signal,
        ...(marker && backend === 'clickhouse' ? { query_id: `${marker}_${randomUUID()}` } : {}),
      });
      return result.json<T>();
    };
    return exclusive(async () => {
      try {
        if (!marker || !o?.signal) return await run(o?.signal);
        return await untilSettledOrKilled(run, o.signal, () => control.cancel(marker), drain);
      } catch (err) {
        await drain();
        throw err;
      }
    });
  }
  return {
    backend,
    database,
    table: (name) => `${quoteIdentifier(database)}.${quoteIdentifier(name)}`,
    query<T>(sql: string, o?: QueryOptions) {
      return query<T>(sql, o, 'JSONEachRow');
    },
    async queryRows(sql, o) {
      const [names = [], types = [], ...rows] = await query<unknown[]>(
        sql,
        o,
        'JSONCompactEachRowWithNamesAndTypes',
      );
      return { columns: names.map((name, i) => ({ name: String(name), type: String(types[i]) })), rows };
    },
    async command(sql, o) {
      await client.command({
        query: sql,
        query_params: o?.params,
        clickhouse_settings: clickhouseSettings(o),
        abort_signal: o?.signal,
      });
    },
    async insert(table, rows) {
      if (rows.length === 0) return;
      await client.insert({
        table: `${quoteIdentifier(database)}.${quoteIdentifier(table)}`,
        values: rows as object[],
        format: 'JSONEachRow',
      });
    },
    cancel: (marker) => control.cancel(marker),
    running: (marker) => control.running(marker),
    async ping() {
      const result = await client.ping();
      if (!result.success) throw result.error;
    },
    async close() {
      await Promise.allSettled([control.close(), client.close()]);
    },
  };
}

type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;

/** chdb builds against @clickhouse/client-common while the client bundles its own copy of the types. */
function chdbConnection(path: string): ClientConnection {
  return createChdbConnection({ path }) as unknown as ClientConnection;
}

export async function openEventsStore(options: EventsStoreOptions): Promise<EventsStore> {
  const backend: EventsBackend = options.clickhouseUrl ? 'clickhouse' : 'chdb';
  const path = join(options.dataDir, 'events');
  const client = options.clickhouseUrl
    ? createClient({ url: options.clickhouseUrl, request_timeout: 600_000 })
    : createClient({ connection: chdbConnection(path) });
  // chDB runs one query at a time per session: KILL and system.processes go through a second one.
  let second: ClickHouseClient | undefined;
  const controlClient = () => {
    if (options.clickhouseUrl) return client;
    second ??= createClient({ connection: chdbConnection(path) });
    return second;
  };
  const control = engineControl(controlClient, async () => {
    await second?.close();
  });
  const store = wrap(client, backend, options.database, control);
  try {
    await store.command(`CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(options.database)}`);
    await migrateEvents(store);
    return store;
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
}
