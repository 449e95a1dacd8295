import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import { dialectNamed, type SqlDialect } from './dialect.js';
import { migrateToLatest } from './migrate.js';
import { BurrowSqliteDialect } from './sqlite-driver.js';
import type { MetaTables } from './tables.js';
import {
  startWalCheckpointer,
  type WalCheckpointer,
  type WalCheckpointerOptions,
} from './wal-checkpointer.js';

export type MetaDb = Kysely<MetaTables>;

export interface MetaStore {
  db: MetaDb;
  dialect: SqlDialect;
  /** Names of the migrations applied by this open (empty when the schema was current). */
  applied: string[];
  /** SQLite only: the worker that checkpoints the WAL off the event loop. */
  checkpointer?: WalCheckpointer | undefined;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface MetaStoreOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  databaseSchema?: string | undefined;
  /** SQLite only: when and how the WAL is checkpointed (wal-checkpointer.ts). */
  walCheckpoint?: WalCheckpointerOptions | undefined;
  /** false: open without applying migrations (`burrow doctor` looks, it does not change). */
  migrate?: boolean | undefined;
}

const INT8_OID = 20;

/** `pg` is loaded only with DATABASE_URL, so a SQLite installation never pays for it. */
async function openPostgres(url: string, schema: string | undefined): Promise<MetaDb> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    // Counts come back as int8; our counts fit a JS number.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  return new Kysely<MetaTables>({ dialect: new PostgresDialect({ pool }) });
}

function openSqlite(dataDir: string, walOptions?: WalCheckpointerOptions) {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'metadata.sqlite');
  const database = new SqliteDatabase(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  const checkpointer = startWalCheckpointer(database, file, walOptions);
  return { db: new Kysely<MetaTables>({ dialect: new BurrowSqliteDialect(database) }), checkpointer };
}

/** Opens the metadata store named by the options and brings its schema up to date. */
export async function openMetaStore(options: MetaStoreOptions): Promise<MetaStore> {
  const dialect = dialectNamed(options.databaseUrl ? 'postgres' : 'sqlite');
  const sqlite = options.databaseUrl ? undefined : openSqlite(options.dataDir, options.walCheckpoint);
  const db = sqlite?.db ?? (await openPostgres(options.databaseUrl as string, options.databaseSchema));
  const checkpointer = sqlite?.checkpointer;
  try {
    if (dialect.name === 'postgres' && options.databaseSchema) {
      await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(options.databaseSchema)}`.execute(db);
    }
    const applied =
      options.migrate === false
        ? []
        : await migrateToLatest(db as Kysely<unknown>, {
            schema: options.databaseSchema,
            backupDir: options.databaseUrl ? undefined : join(options.dataDir, 'backups'),
          });
    return {
      db,
      dialect,
      applied,
      checkpointer,
      async ping() {
        await sql`SELECT 1`.execute(db);
      },
      async close() {
        // The worker's connection first: the last connection to close checkpoints the rest.
        await checkpointer?.close();
        await db.destroy();
      },
    };
  } catch (error) {
    await checkpointer?.close().catch(() => {});
    await db.destroy().catch(() => {});
    throw error;
  }
}
