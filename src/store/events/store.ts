import { join } from 'node:path';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { migrateEvents } from './migrate.js';

export type EventsBackend = 'chdb' | 'clickhouse';

export interface QueryOptions {
  params?: Record<string, unknown>;
  settings?: Record<string, string | number | boolean>;
  signal?: AbortSignal;
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
  command(sql: string, options?: QueryOptions): Promise<void>;
  insert(table: string, rows: readonly object[]): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
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

function wrap(client: ClickHouseClient, backend: EventsBackend, database: string): EventsStore {
  const clickhouseSettings = (o?: QueryOptions) =>
    ({ ...DEFAULT_SETTINGS, ...o?.settings }) as Parameters<
      ClickHouseClient['query']
    >[0]['clickhouse_settings'];
  return {
    backend,
    database,
    table: (name) => `${quoteIdentifier(database)}.${quoteIdentifier(name)}`,
    async query<T>(sql: string, o?: QueryOptions) {
      const result = await client.query({
        query: sql,
        format: 'JSONEachRow',
        query_params: o?.params,
        clickhouse_settings: clickhouseSettings(o),
        abort_signal: o?.signal,
      });
      return result.json<T>();
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
    async ping() {
      const result = await client.ping();
      if (!result.success) throw result.error;
    },
    async close() {
      await client.close();
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
  const client = options.clickhouseUrl
    ? createClient({ url: options.clickhouseUrl, request_timeout: 600_000 })
    : createClient({ connection: chdbConnection(join(options.dataDir, 'events')) });
  const store = wrap(client, backend, options.database);
  try {
    await store.command(`CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(options.database)}`);
    await migrateEvents(store);
    return store;
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
}
