import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { eventsMigrationStatus, migrateEvents } from '../../src/store/events/migrate.js';
import { openEventsStore } from '../../src/store/events/store.js';
import { openMetaStore } from '../../src/store/meta/db.js';
import { type MigrationModule, metaMigrationStatus, migrateToLatest } from '../../src/store/meta/migrate.js';
import { NewerDataError } from '../../src/store/shared/newer-data.js';
import { backend, dropSchema, freshSchema } from '../helpers/harness.js';

const dirs: string[] = [];
const tmp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
const schemas: string[] = [];
afterAll(async () => {
  for (const s of schemas) await dropSchema(s);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const ledgerTable = (schema: string | undefined) =>
  sql.table(backend === 'postgres' ? `${schema ?? 'public'}.kysely_migration` : 'kysely_migration');

describe(`upgrades: metadata store (${backend})`, () => {
  it('refuses a store a newer Burrow migrated, before changing anything, and says what to do', async () => {
    const dataDir = tmp('burrow-newer-meta-');
    const schema = await freshSchema();
    if (schema) schemas.push(schema);
    const options = { dataDir, databaseUrl: process.env.DATABASE_URL, databaseSchema: schema };
    const first = await openMetaStore(options);
    const db = first.db as unknown as Kysely<unknown>;
    // What a newer release leaves behind: a ledger row this code does not know.
    await sql`INSERT INTO ${ledgerTable(schema)} (name, timestamp) VALUES ('9999_from_the_future', '2030-01-01T00:00:00.000Z')`.execute(
      db,
    );
    const before = await metaMigrationStatus(db, { schema });
    expect(before.unknown).toEqual(['9999_from_the_future']);
    expect(before.pending).toEqual([]);
    await first.close();

    const error = await openMetaStore(options).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NewerDataError);
    expect((error as Error).message).toContain('written by a newer version of Burrow');
    expect((error as Error).message).toContain('9999_from_the_future');
    expect((error as Error).message).toContain('Nothing was changed');

    // The doctor's view opens without migrating and still reads the ledger.
    const look = await openMetaStore({ ...options, migrate: false });
    expect((await metaMigrationStatus(look.db as unknown as Kysely<unknown>, { schema })).unknown).toEqual([
      '9999_from_the_future',
    ]);
    await look.close();
  });
});

describe('upgrades: a migration that rewrites data is preceded by a copy (SQLite)', () => {
  const steps: Record<string, MigrationModule> = {
    '0001_table': {
      async up(db) {
        await sql`CREATE TABLE plans (id integer primary key, name text)`.execute(db);
        await sql`INSERT INTO plans (name) VALUES ('free'), ('pro')`.execute(db);
      },
    },
  };
  const rewrite: Record<string, MigrationModule> = {
    ...steps,
    '0002_rename': {
      rewritesData: true,
      async up(db) {
        await sql`UPDATE plans SET name = upper(name)`.execute(db);
      },
    },
  };

  it('copies the database before the rewrite, and the copy holds the rows as they were', async () => {
    const dir = tmp('burrow-rewrite-');
    const file = join(dir, 'metadata.sqlite');
    const open = async () => {
      const { Kysely: K, SqliteDialect } = await import('kysely');
      return new K<unknown>({ dialect: new SqliteDialect({ database: new SqliteDatabase(file) }) });
    };
    const db = await open();
    expect(await migrateToLatest(db, { migrations: steps, backupDir: join(dir, 'backups') })).toEqual([
      '0001_table',
    ]);
    expect(existsSync(join(dir, 'backups'))).toBe(false);

    const now = () => new Date('2026-11-28T12:00:00.000Z');
    expect(await migrateToLatest(db, { migrations: rewrite, backupDir: join(dir, 'backups'), now })).toEqual([
      '0002_rename',
    ]);
    const copies = readdirSync(join(dir, 'backups'));
    expect(copies).toEqual(['metadata-before-0002_rename-2026-11-28T12-00-00-000Z.sqlite']);
    const copy = new SqliteDatabase(join(dir, 'backups', copies[0] as string), { readonly: true });
    expect(copy.prepare('SELECT name FROM plans ORDER BY id').all()).toEqual([
      { name: 'free' },
      { name: 'pro' },
    ]);
    copy.close();
    const now2 = await sql<{ name: string }>`SELECT name FROM plans ORDER BY id`.execute(db);
    expect(now2.rows).toEqual([{ name: 'FREE' }, { name: 'PRO' }]);
    await db.destroy();
  });

  it('takes no copy of a new database (nothing to protect)', async () => {
    const dir = tmp('burrow-rewrite-new-');
    const { Kysely: K, SqliteDialect } = await import('kysely');
    const db = new K<unknown>({
      dialect: new SqliteDialect({ database: new SqliteDatabase(join(dir, 'm.sqlite')) }),
    });
    expect(await migrateToLatest(db, { migrations: rewrite, backupDir: join(dir, 'backups') })).toHaveLength(
      2,
    );
    expect(existsSync(join(dir, 'backups'))).toBe(false);
    await db.destroy();
  });
});

describe('upgrades: events store', () => {
  it('refuses an events store a newer Burrow migrated, and reports it without migrating', async () => {
    const dataDir = tmp('burrow-newer-events-');
    const store = await openEventsStore({
      dataDir,
      clickhouseUrl: process.env.CLICKHOUSE_URL,
      database: `burrow_up_${process.pid}`,
      personColumnsRefreshMs: 0,
    });
    try {
      expect((await eventsMigrationStatus(store)).pending).toEqual([]);
      await store.insert('schema_migrations', [{ name: '9999_from_the_future' }]);
      const status = await eventsMigrationStatus(store);
      expect(status.unknown).toEqual(['9999_from_the_future']);
      await expect(migrateEvents(store)).rejects.toThrow(NewerDataError);
      await expect(migrateEvents(store)).rejects.toThrow(/events store was written by a newer version/);
    } finally {
      await store.command(`DROP DATABASE IF EXISTS ${store.database}`).catch(() => {});
      await store.close();
    }
  });
});
