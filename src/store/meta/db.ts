import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import { dialectNamed, type SqlDialect } from './dialect.js';
import { migrateToLatest } from './migrate.js';
import { BurrowSqliteDialect } from './sqlite-driver.js';
import type { MetaTables } from './tables.js';

export type MetaDb = Kysely<MetaTables>;

export interface MetaStore {
  db: MetaDb;
  dialect: SqlDialect;
  /** Names of the migrations applied by this open (empty when the schema was current). */
  applied: string[];
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface MetaStoreOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  databaseSchema?: string | undefined;
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

function openSqlite(dataDir: string): MetaDb {
  mkdirSync(dataDir, { recursive: true });
  const database = new SqliteDatabase(join(dataDir, 'metadata.sqlite'));
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  return new Kysely<MetaTables>({
    dialect: new BurrowSqliteDialect(database),
  });
}

/** Opens the metadata store named by the options and brings its schema up to date. */
export async function openMetaStore(options: MetaStoreOptions): Promise<MetaStore> {
  const dialect = dialectNamed(options.databaseUrl ? 'postgres' : 'sqlite');
  const db = options.databaseUrl
    ? await openPostgres(options.databaseUrl, options.databaseSchema)
    : openSqlite(options.dataDir);
  try {
    if (dialect.name === 'postgres' && options.databaseSchema) {
      await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(options.databaseSchema)}`.execute(db);
    }
    const applied = await migrateToLatest(db as Kysely<unknown>, options.databaseSchema);
    return {
      db,
      dialect,
      applied,
      async ping() {
        await sql`SELECT 1`.execute(db);
      },
      async close() {
        await db.destroy();
      },
    };
  } catch (error) {
    await db.destroy().catch(() => {});
    throw error;
  }
}
