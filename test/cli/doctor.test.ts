import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openMetaStore } from '../../src/store/meta/db.js';
import { backend, dropSchema, freshSchema } from '../helpers/harness.js';
import { runToEnd } from '../helpers/process.js';

interface Check {
  status: string;
  check: string;
  detail: string;
  fix?: string;
}

describe(`burrow doctor and a data directory from a newer release (${backend})`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'burrow-doctor-'));
  let schema: string | undefined;
  const env = async (dir = dataDir) => {
    schema ??= await freshSchema();
    // A port nothing listens on: the doctor reports the server as not answering and opens the stores.
    return {
      BURROW_DATA_DIR: dir,
      DATABASE_URL: process.env.DATABASE_URL,
      DATABASE_SCHEMA: schema,
      PORT: '1',
    };
  };
  const doctor = async (dir?: string) => {
    const run = await runToEnd('src/cli/main.ts', ['doctor', '--json'], await env(dir));
    const json = run.output.slice(run.output.indexOf('['));
    return { code: run.code, checks: JSON.parse(json) as Check[], output: run.output };
  };
  afterAll(async () => {
    if (schema) await dropSchema(schema);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('says a missing data directory will be created, and exits 0', async () => {
    const { code, checks } = await doctor(join(dataDir, 'not-yet'));
    expect(code).toBe(0);
    const dir = checks.find((c) => c.check === 'data directory');
    expect(dir).toMatchObject({ status: 'warn', fix: expect.stringContaining('npm start') });
  });

  it('on a new store: pending migrations with what to do; after migrate: every check ok', async () => {
    const before = await doctor();
    // The doctor looks without changing: asked again, the same migrations are still pending.
    expect((await doctor()).checks.find((c) => c.check === 'events migrations')?.status).toBe('warn');
    expect(before.code).toBe(0);
    const meta = before.checks.find((c) => c.check === 'metadata migrations');
    expect(meta?.status).toBe('warn');
    expect(meta?.fix).toContain('back up first');
    expect(before.checks.find((c) => c.check === 'server')?.detail).toContain('not answering');

    const migrate = await runToEnd('src/cli/main.ts', ['migrate'], await env());
    expect(migrate.code).toBe(0);
    expect(JSON.parse(migrate.output.slice(migrate.output.indexOf('{')))).toMatchObject({
      applied: expect.arrayContaining(['0001_init']),
      events_applied: expect.arrayContaining(['0001_events']),
    });
    const after = await doctor();
    expect(after.code).toBe(0);
    const byName = Object.fromEntries(after.checks.map((c) => [c.check, c]));
    expect(byName['metadata migrations']).toMatchObject({ status: 'ok' });
    expect(byName['metadata store']?.status).toBe('ok');
    expect(byName['events store']?.status).toBe('ok');
    expect(byName.versions?.detail).toMatch(/^Burrow \d+\.\d+\.\d+, Node \d+/);
    expect(byName.disk?.detail).toMatch(/free of/);
    expect(byName['events migrations']).toMatchObject({ status: 'ok' });
  });

  it('fails, and the server refuses to start, on a store migrated by a newer release', async () => {
    const store = await openMetaStore({
      dataDir,
      databaseUrl: process.env.DATABASE_URL,
      databaseSchema: schema,
    });
    const table = sql.table(
      backend === 'postgres' ? `${schema ?? 'public'}.kysely_migration` : 'kysely_migration',
    );
    await sql`INSERT INTO ${table} (name, timestamp) VALUES ('9999_from_the_future', '2030-01-01T00:00:00.000Z')`.execute(
      store.db,
    );
    await store.close();

    const { code, checks } = await doctor();
    expect(code).toBe(1);
    expect(checks.find((c) => c.check === 'metadata migrations')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('9999_from_the_future'),
    });

    const human = await runToEnd('src/cli/main.ts', ['doctor'], await env());
    expect(human.code).toBe(1);
    expect(human.output).toMatch(/^fail\s+metadata migrations\s+written by a newer Burrow/m);
    expect(human.output).toContain('What to do:');

    const start = await runToEnd('src/main.ts', [], { ...(await env()), PORT: '0' });
    expect(start.code).toBe(1);
    expect(start.output).toContain(
      'burrow: cannot start: The metadata store was written by a newer version of Burrow',
    );
    expect(start.output).not.toMatch(/\n\s+at /);
  }, 60_000);
});
