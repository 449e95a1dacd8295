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
import { Lane, type LaneName } from './lanes.js';
import { migrateEvents } from './migrate.js';
import {
  discoveredPersonColumns,
  materializePersonProperties,
  type PersonColumns,
} from './person-columns.js';
import { engineError, readBytes, readRows } from './results.js';
import { settingsPrefix } from './session-settings.js';

export type { EngineProcess } from './control.js';
export type { LaneName } from './lanes.js';
export type { PersonColumns } from './person-columns.js';

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
  /** The project the statement runs for: a lane's sessions are shared fairly between projects. */
  teamId?: number;
  /** Where it runs (lanes.ts): reads default to `query`, commands to `write`. */
  lane?: LaneName;
  /** Runs without waiting for the read barriers (the capture journal's own writer). */
  unfenced?: boolean;
  /**
   * Bytes the answer may have on the `query` lane (default: the store's `maxResultBytes`; 0: no
   * bound, for callers that read one known-large value such as a recording's snapshots).
   */
  maxResultBytes?: number;
}

/**
 * Waited for before every query and command (not inserts), given the statement's project when it
 * names one: undefined when there is nothing to wait for. The capture journal installs one so
 * that a read sees every event this node has acknowledged for that project (read-your-writes,
 * docs/capture.md); a statement naming no project waits for every project's rows.
 */
export type ReadBarrier = (signal?: AbortSignal, teamId?: number) => Promise<void> | undefined;

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
  /** Every query and command waits for `barrier` until the returned function removes it. */
  addReadBarrier(barrier: ReadBarrier): () => void;
  /** Engine queries tagged `marker` that are still running, with their progress. */
  running(marker: string): Promise<EngineProcess[]>;
  ping(): Promise<void>;
  /** Person properties with a column on events (`pmat_<key>`), as last read from the engine. */
  personColumns: PersonColumns;
  close(): Promise<void>;
}

export interface RowsResult {
  columns: Array<{ name: string; type: string }>;
  rows: unknown[][];
}

/** How the engine is shared (docs/isolation.md). */
export interface EngineLimits {
  /** Sessions of the `query` lane: interactive queries running at once. */
  queryConcurrency: number;
  /** Of those, how many one project may hold (kept below `queryConcurrency`). */
  queryTeamShare: number;
  /** Sessions of the `export` lane (batch exports). */
  exportConcurrency: number;
  /** Sessions of the `write` lane: capture's inserts that may run at once (group commit writers). */
  writeConcurrency: number;
  /** Engine memory for all statements together, split evenly between the lanes' sessions. */
  memoryLimitBytes: number;
  /**
   * Engine threads per statement of the query and export lanes (0: the engine's default, one per
   * core). Without a cap two queries of one project took every core, and capture on the write
   * lane waited for CPU (bench/isolation.ts); inserts keep the default.
   */
  queryMaxThreads: number;
  /**
   * Bytes one answer of the query lane may have (0: no bound), counted by the engine on the rows it
   * returns and again on the JSON text before it is parsed (results.ts).
   */
  maxResultBytes: number;
}

export const DEFAULT_ENGINE_LIMITS: EngineLimits = {
  queryConcurrency: 4,
  queryTeamShare: 2,
  exportConcurrency: 1,
  writeConcurrency: 1,
  memoryLimitBytes: 12 * 1024 ** 3,
  queryMaxThreads: 0,
  maxResultBytes: 16 * 1024 ** 2,
};

export interface EventsStoreOptions {
  dataDir: string;
  clickhouseUrl?: string | undefined;
  database: string;
  limits?: Partial<EngineLimits>;
  /** Person properties to give a column on events at startup (idempotent; store/events/person-columns.ts). */
  materializedPersonProperties?: readonly string[] | undefined;
  /**
   * How often to read again which person columns exist, for nodes sharing one ClickHouse server
   * where another node or the CLI added one (0: only at startup). Default 60 s.
   */
  personColumnsRefreshMs?: number | undefined;
  /** false: open without applying migrations (`burrow doctor` looks, it does not change). */
  migrate?: boolean | undefined;
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
/** chDB's own single-shot query: the answer's bytes, measured before they become a string. */
type RawQuery = ChdbConnection['chdb']['queryAsync'];

/** The engines' default since 23.x, pinned: objects for String columns are kept as their text. */
const ENCODED_SETTINGS = { input_format_json_read_objects_as_strings: 1 } as const;

/** chDB's raw insert takes `db.table` with plain identifiers only. */
const PLAIN_NAME = /^[A-Za-z0-9_]+$/;

/** One engine session: on chDB its own connection (one statement at a time); on a server, a slot. */
interface Session {
  client: ClickHouseClient;
  rawInsert?: RawInsert | undefined;
  rawQuery?: RawQuery | undefined;
}

/** The longest a read may run when its SQL sets no limit of its own (the async query limit). */
const READ_TIME_LIMIT_S = 600;

type Format = 'JSONEachRow' | 'JSONCompactEachRowWithNamesAndTypes';

function wrap(
  backend: EventsBackend,
  database: string,
  lanes: Record<LaneName, Lane<Session>>,
  limits: EngineLimits,
  control: EngineControl,
  closeSessions: () => Promise<void>,
  /** Liveness through the control session: a health check never queues behind queries. */
  ping: () => Promise<void>,
): EventsStore {
  const chdb = backend === 'chdb';
  // Every statement gets an equal part of the engine's memory: one session runs one statement at
  // a time, so together they stay under the limit, and a statement past its part fails alone.
  const sessions = limits.queryConcurrency + limits.exportConcurrency + limits.writeConcurrency;
  const memoryPerStatement = Math.max(64 * 1024 ** 2, Math.floor(limits.memoryLimitBytes / sessions));
  const threads: Record<string, number> =
    limits.queryMaxThreads > 0 ? { max_threads: limits.queryMaxThreads } : {};
  const laneSettings: Record<LaneName, Record<string, number>> = {
    write: { max_memory_usage: memoryPerStatement, max_execution_time: 0 },
    query: { max_memory_usage: memoryPerStatement, max_execution_time: READ_TIME_LIMIT_S, ...threads },
    export: { max_memory_usage: memoryPerStatement, max_execution_time: READ_TIME_LIMIT_S, ...threads },
  };
  // log_comment is always set: on chDB settings stick to the session (see control.ts).
  const resultBytesFor = (lane: LaneName, o?: QueryOptions) =>
    lane === 'query' ? (o?.maxResultBytes ?? limits.maxResultBytes) : 0;
  const settingsFor = (lane: LaneName, o?: QueryOptions) => {
    const resultBytes = resultBytesFor(lane, o);
    return {
      ...DEFAULT_SETTINGS,
      ...laneSettings[lane],
      // Sticks to a chDB session like every setting, so it is always given (0 lifts it).
      max_result_bytes: resultBytes,
      // A server answers the error in the status instead of after the first rows.
      ...(resultBytes > 0 && !chdb ? { wait_end_of_query: 1 } : {}),
      ...o?.settings,
      log_comment: o?.marker ?? '',
    };
  };
  const keyOf = (o?: QueryOptions) => o?.teamId ?? 0;
  const barriers = new Set<ReadBarrier>();

  /** One statement on `session`; settles only when the engine has settled it. */
  async function statement<T>(
    session: Session,
    kind: 'query' | 'command',
    sql: string,
    lane: LaneName,
    o: QueryOptions | undefined,
    format: Format = 'JSONEachRow',
  ): Promise<T[]> {
    const settings = settingsFor(lane, o);
    if (chdb) {
      // Parameters and settings as SET statements on this session (session-settings.ts); no
      // abort signal: chDB would reject at once while the engine still ran the statement on the
      // session. Cancellation is a KILL from the control session.
      const text = settingsPrefix(settings, o?.params) + sql;
      if (kind === 'command') {
        await session.client.command({ query: text });
        return [];
      }
      if (session.rawQuery) {
        const result = await session.rawQuery(text, { format }).catch((error) => {
          throw engineError(error);
        });
        return readBytes<T>(result.bytes(), resultBytesFor(lane, o));
      }
      return readRows<T>(await session.client.query({ query: text, format }), resultBytesFor(lane, o));
    }
    const common = {
      query: sql,
      query_params: o?.params,
      clickhouse_settings: settings as unknown as ClickHouseSettings,
      abort_signal: o?.signal,
      ...(o?.marker ? { query_id: `${o.marker}_${randomUUID()}` } : {}),
    };
    if (kind === 'command') {
      await session.client.command(common);
      return [];
    }
    return readRows<T>(await session.client.query({ ...common, format }), resultBytesFor(lane, o));
  }

  async function run<T>(
    kind: 'query' | 'command',
    sql: string,
    o: QueryOptions | undefined,
    format?: Format,
  ): Promise<T[]> {
    const marker = o?.marker;
    if (marker !== undefined) assertMarker(marker);
    // Before taking a session: a statement waiting here holds nothing the journal's writer needs.
    if (barriers.size > 0 && !o?.unfenced) {
      for (const barrier of barriers) {
        const wait = barrier(o?.signal, o?.teamId);
        if (wait) await wait;
      }
    }
    const laneName = o?.lane ?? (kind === 'command' ? 'write' : 'query');
    const lane = lanes[laneName];
    const start = () =>
      lane.run(keyOf(o), (session) => statement<T>(session, kind, sql, laneName, o, format), o?.signal);
    const signal = o?.signal;
    if (!signal) return start();
    if (marker) return untilSettledOrKilled(start, signal, () => control.cancel(marker));
    return untilSettledOrAborted(start(), signal);
  }

  async function insertEncoded(table: string, body: string | Buffer): Promise<void> {
    if (body.length === 0) return;
    await lanes.write.run(0, async ({ client, rawInsert }) => {
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
    });
  }
  const personColumns = discoveredPersonColumns((sql, o) => run('query', sql, o, 'JSONEachRow'), database);
  return {
    backend,
    database,
    personColumns,
    table: (name) => `${quoteIdentifier(database)}.${quoteIdentifier(name)}`,
    query<T>(sql: string, o?: QueryOptions) {
      return run<T>('query', sql, o, 'JSONEachRow');
    },
    async queryRows(sql, o) {
      const [names = [], types = [], ...rows] = await run<unknown[]>(
        'query',
        sql,
        o,
        'JSONCompactEachRowWithNamesAndTypes',
      );
      return { columns: names.map((name, i) => ({ name: String(name), type: String(types[i]) })), rows };
    },
    async command(sql, o) {
      await run('command', sql, o);
    },
    async insert(table, rows) {
      if (rows.length === 0) return;
      if (chdb && PLAIN_NAME.test(database) && PLAIN_NAME.test(table)) {
        let body = '';
        for (const row of rows) body += `${JSON.stringify(row)}\n`;
        await insertEncoded(table, body);
        return;
      }
      await lanes.write.run(0, async ({ client }) => {
        await client.insert({
          table: `${quoteIdentifier(database)}.${quoteIdentifier(table)}`,
          values: rows as object[],
          format: 'JSONEachRow',
        });
      });
    },
    insertEncoded,
    cancel: (marker) => control.cancel(marker),
    addReadBarrier(barrier) {
      barriers.add(barrier);
      return () => barriers.delete(barrier);
    },
    running: (marker) => control.running(marker),
    ping,
    async close() {
      await Promise.allSettled([control.close(), closeSessions()]);
    },
  };
}

/** Rejects when `signal` aborts; the work itself goes on (its lane keeps the session until it settles). */
function untilSettledOrAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason ?? new Error('The query was aborted'));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? new Error('The query was aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

type ClickHouseSettings = NonNullable<Parameters<ClickHouseClient['query']>[0]['clickhouse_settings']>;

type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;

/** chdb builds against @clickhouse/client-common while the client bundles its own copy of the types. */
function chdbConnection(connection: ChdbConnection): ClientConnection {
  return connection as unknown as ClientConnection;
}

/** Limits from options, with the per-project share kept below the lane's size. */
export function engineLimits(given: Partial<EngineLimits> = {}): EngineLimits {
  const limits = { ...DEFAULT_ENGINE_LIMITS, ...given };
  const queryTeamShare =
    limits.queryConcurrency > 1
      ? Math.max(1, Math.min(limits.queryTeamShare, limits.queryConcurrency - 1))
      : 1;
  return { ...limits, queryTeamShare };
}

export async function openEventsStore(options: EventsStoreOptions): Promise<EventsStore> {
  const backend: EventsBackend = options.clickhouseUrl ? 'clickhouse' : 'chdb';
  const limits = engineLimits(options.limits);
  const path = join(options.dataDir, 'events');
  const clients: ClickHouseClient[] = [];
  let server: ClickHouseClient | undefined;
  // chDB: a session per slot (separate sessions on one path run in parallel); a server: one HTTP
  // client whose connection pool covers every lane.
  const session = (): Session => {
    if (options.clickhouseUrl) {
      server ??= createClient({
        url: options.clickhouseUrl,
        request_timeout: 600_000,
        max_open_connections:
          limits.queryConcurrency + limits.exportConcurrency + limits.writeConcurrency + 1,
      });
      return { client: server };
    }
    const connection = createChdbConnection({ path });
    const client = createClient({ connection: chdbConnection(connection) });
    clients.push(client);
    return { client, rawInsert: connection.chdb.rawInsert, rawQuery: connection.chdb.queryAsync };
  };
  const drain = async (used: Session): Promise<Session> => {
    if (backend !== 'chdb') return used;
    // Whatever a failed statement left on the session comes out here, not in someone's result:
    // read until the session answers exactly this statement.
    for (let attempt = 0; attempt < 10; attempt++) {
      const text = await used.client
        .query({ query: 'SELECT 1 AS burrow_drain', format: 'JSONEachRow' })
        .then((r) => r.text())
        .catch(() => '');
      if (text.trim() === '{"burrow_drain":1}') return used;
    }
    // Still not clean: the session is closed and replaced rather than handed to anyone.
    clients.splice(clients.indexOf(used.client), 1);
    await used.client.close().catch(() => {});
    return session();
  };
  const sessions = (n: number) => Array.from({ length: n }, session);
  const lanes: Record<LaneName, Lane<Session>> = {
    write: new Lane('write', sessions(limits.writeConcurrency), limits.writeConcurrency, drain),
    query: new Lane('query', sessions(limits.queryConcurrency), limits.queryTeamShare, drain),
    export: new Lane('export', sessions(limits.exportConcurrency), limits.exportConcurrency, drain),
  };
  // chDB runs one query at a time per session: KILL and system.processes go through their own.
  const controlClient = session().client;
  const control = engineControl(
    () => controlClient,
    async () => {},
  );
  const closeAll = async () => {
    await Promise.allSettled([...clients.map((c) => c.close()), server?.close()]);
  };
  const ping = async () => {
    const result = await controlClient.ping();
    if (!result.success) throw result.error;
  };
  let refresher: NodeJS.Timeout | undefined;
  const store = wrap(
    backend,
    options.database,
    lanes,
    limits,
    control,
    async () => {
      clearInterval(refresher);
      await closeAll();
    },
    ping,
  );
  try {
    await store.command(`CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(options.database)}`);
    if (options.migrate === false) return store;
    await migrateEvents(store);
    await store.personColumns.refresh();
    if (options.materializedPersonProperties?.length)
      await materializePersonProperties(store, options.materializedPersonProperties);
    const every = options.personColumnsRefreshMs ?? 60_000;
    if (every > 0) {
      // A failed read keeps the last set: a column that exists is still there.
      refresher = setInterval(() => store.personColumns.refresh().catch(() => {}), every);
      refresher.unref();
    }
    return store;
  } catch (error) {
    await closeAll();
    throw error;
  }
}
