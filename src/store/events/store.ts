import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { type ChdbConnection, createChdbConnection } from 'chdb/connection';
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
  /**
   * Rows already encoded as JSONEachRow lines (each ending in a newline). A JSON object given for
   * a String column is stored as its text (`input_format_json_read_objects_as_strings`).
   */
  insertEncoded(table: string, body: string | Buffer): Promise<void>;
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

/** chDB's own insert of a JSONEachRow payload, bypassing the HTTP client's per-row stream. */
type RawInsert = ChdbConnection['chdb']['rawInsert'];

/** The engines' default since 23.x, pinned: objects for String columns are kept as their text. */
const ENCODED_SETTINGS = { input_format_json_read_objects_as_strings: 1 } as const;

/** chDB's raw insert takes `db.table` with plain identifiers only. */
const PLAIN_NAME = /^[A-Za-z0-9_]+$/;

function wrap(
  client: ClickHouseClient,
  backend: EventsBackend,
  database: string,
  control: EngineControl,
  rawInsert?: RawInsert,
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
  async function insertEncoded(table: string, body: string | Buffer): Promise<void> {
    if (body.length === 0) return;
    if (rawInsert && PLAIN_NAME.test(database) && PLAIN_NAME.test(table)) {
      // The HTTP client encodes rows as a stream, one event-loop turn per few rows, which under
      // capture load interleaved with every request in flight and stretched each insert
      // several-fold, and chDB then rebuilt one string from the chunks. A Buffer handed to the
      // engine as is (it parses on its own threads) costs a fraction.
      await rawInsert({
        table: `${database}.${table}`,
        values: typeof body === 'string' ? Buffer.from(body) : body,
        format: 'JSONEachRow',
        settings: ENCODED_SETTINGS,
      });
      return;
    }
    // The client's `insert` JSON-encodes whatever a JSONEachRow stream yields; `exec` sends the
    // bytes as they are.
    const result = await client.exec({
      query: `INSERT INTO ${quoteIdentifier(database)}.${quoteIdentifier(table)} FORMAT JSONEachRow`,
      values: Readable.from([body], { objectMode: false }),
      clickhouse_settings: ENCODED_SETTINGS,
    });
    for await (const _ of result.stream) {
      // An INSERT answers nothing; reading to the end frees the connection.
    }
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
      if (rawInsert && PLAIN_NAME.test(database) && PLAIN_NAME.test(table)) {
        let body = '';
        for (const row of rows) body += `${JSON.stringify(row)}\n`;
        await insertEncoded(table, body);
        return;
      }
      await client.insert({
        table: `${quoteIdentifier(database)}.${quoteIdentifier(table)}`,
        values: rows as object[],
        format: 'JSONEachRow',
      });
    },
    insertEncoded,
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
function chdbConnection(connection: ChdbConnection): ClientConnection {
  return connection as unknown as ClientConnection;
}

export async function openEventsStore(options: EventsStoreOptions): Promise<EventsStore> {
  const backend: EventsBackend = options.clickhouseUrl ? 'clickhouse' : 'chdb';
  const path = join(options.dataDir, 'events');
  const main = options.clickhouseUrl ? undefined : createChdbConnection({ path });
  const client = main
    ? createClient({ connection: chdbConnection(main) })
    : createClient({ url: options.clickhouseUrl, request_timeout: 600_000 });
  // chDB runs one query at a time per session: KILL and system.processes go through a second one.
  let second: ClickHouseClient | undefined;
  const controlClient = () => {
    if (options.clickhouseUrl) return client;
    second ??= createClient({ connection: chdbConnection(createChdbConnection({ path })) });
    return second;
  };
  const control = engineControl(controlClient, async () => {
    await second?.close();
  });
  const store = wrap(client, backend, options.database, control, main?.chdb.rawInsert);
  try {
    await store.command(`CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(options.database)}`);
    await migrateEvents(store);
    return store;
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
}
