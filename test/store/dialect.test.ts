import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bool } from '../../src/store/meta/codec.js';
import { type MetaStore, openMetaStore } from '../../src/store/meta/db.js';
import { dialectOf } from '../../src/store/meta/dialect.js';
import { isUniqueViolation } from '../../src/store/meta/errors.js';
import { backend, dropSchema, freshSchema } from '../helpers/harness.js';

/** The store asks one dialect object; on the real database it must name it and speak it. */
describe(`metadata dialect (${backend})`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'burrow-dialect-'));
  let schema: string | undefined;
  let store: MetaStore;
  let db: Kysely<unknown>;
  beforeAll(async () => {
    schema = await freshSchema();
    store = await openMetaStore({ dataDir, databaseUrl: process.env.DATABASE_URL, databaseSchema: schema });
    db = store.db as unknown as Kysely<unknown>;
    await sql`create table dialect_probe (k text primary key, flag ${sql.raw(store.dialect.types.bool)})`.execute(
      db,
    );
  });
  afterAll(async () => {
    await store?.close();
    if (schema) await dropSchema(schema);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is found from a connection and from a transaction on it', async () => {
    expect(dialectOf(db).name).toBe(backend);
    expect(store.dialect).toBe(dialectOf(db));
    await db.transaction().execute(async (trx) => {
      expect(dialectOf(trx)).toBe(store.dialect);
    });
  });

  it('writes boolean literals the database stores and reads back', async () => {
    const dialect = dialectOf(db);
    await sql`insert into dialect_probe (k, flag) values ('t', ${dialect.bool(true)}), ('f', ${dialect.bool(false)})`.execute(
      db,
    );
    const rows = await sql<{ k: string; flag: unknown }>`select k, flag from dialect_probe
      where flag = ${dialect.bool(true)}`.execute(db);
    expect(rows.rows.map((r) => [r.k, bool(r.flag)])).toEqual([['t', true]]);
  });

  it("recognises the database's own unique violation, and nothing else as one", async () => {
    const duplicate =
      await sql`insert into dialect_probe (k, flag) values ('t', ${dialectOf(db).bool(false)})`
        .execute(db)
        .catch((error: unknown) => error);
    expect(isUniqueViolation(duplicate)).toBe(true);
    expect(dialectOf(db).isUniqueViolation(duplicate)).toBe(true);
    const other = await sql`select * from no_such_table`.execute(db).catch((error: unknown) => error);
    expect(other).toBeInstanceOf(Error);
    expect(isUniqueViolation(other)).toBe(false);
  });

  it('claims a row with a lock that skips rows another transaction holds', async () => {
    const dialect = dialectOf(db);
    const claim = async (trx: Kysely<unknown>) =>
      (
        await sql<{
          k: string;
        }>`select p.k from dialect_probe p order by p.k limit 1 ${dialect.lockSkipLocked('p')}`.execute(trx)
      ).rows;
    // SQLite has one writer (and Burrow one connection): a second transaction would wait, not skip.
    if (dialect.name === 'sqlite') {
      expect(await db.transaction().execute(claim)).toEqual([{ k: 'f' }]);
      return;
    }
    await db.transaction().execute(async (holder) => {
      expect(await claim(holder)).toEqual([{ k: 'f' }]);
      expect(await db.transaction().execute(claim)).toEqual([{ k: 't' }]);
    });
  });
});
