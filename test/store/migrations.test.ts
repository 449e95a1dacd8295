import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EVENTS_MIGRATIONS, migrateEvents } from '../../src/store/events/migrate.js';
import { openEventsStore } from '../../src/store/events/store.js';
import { openMetaStore } from '../../src/store/meta/db.js';
import { NewerDataError } from '../../src/store/shared/newer-data.js';
import { backend, dropSchema, freshSchema } from '../helpers/harness.js';

const TABLES = ['organizations', 'teams', 'users', 'organization_memberships', 'personal_api_keys'] as const;

describe(`metadata migrations (${backend})`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'burrow-mig-'));
  let schema: string | undefined;
  afterAll(async () => {
    if (schema) await dropSchema(schema);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('applies every migration on an empty store and none on the next open', async () => {
    schema = await freshSchema();
    const options = { dataDir, databaseUrl: process.env.DATABASE_URL, databaseSchema: schema };
    const first = await openMetaStore(options);
    expect(first.dialect.name).toBe(backend);
    expect(first.applied).toEqual([
      '0001_init',
      '0002_persons',
      '0003_org_access',
      '0004_playlists',
      '0005_batch_exports',
      '0006_actions',
      '0007_batch_export_offsets',
      '0008_invite_tokens',
      '0010_backfill_rerun',
      '0012_feature_flags',
      '0013_project_secret_keys',
      '0015_definitions',
      '0016_cohorts',
      '0020_insights_dashboards',
      '0030_team_modifiers',
      '0034_team_settings',
      '0040_surveys',
      '0041_llm_prompts',
      '0044_error_tracking',
      '0045_experiments',
      '0046_async_deletions',
      '0047_error_tracking_rules',
      '0048_hog_functions',
      '0049_experiment_extras',
      '0050_hog_queue',
      '0051_destination_state',
      '0052_hog_queue_per_destination',
    ]);
    for (const table of TABLES) {
      expect(await first.db.selectFrom(table).selectAll().execute()).toEqual([]);
    }
    await first.close();

    const second = await openMetaStore(options);
    expect(second.applied).toEqual([]);
    await second.ping();
    await second.close();
  });

  it('enforces the constraints the domain relies on', async () => {
    const store = await openMetaStore({
      dataDir,
      databaseUrl: process.env.DATABASE_URL,
      databaseSchema: schema,
    });
    const at = new Date().toISOString();
    const org = {
      id: '00000000-0000-4000-8000-000000000001',
      name: 'A',
      slug: 'a',
      created_at: at,
      updated_at: at,
    };
    await store.db.insertInto('organizations').values(org).execute();
    await expect(
      store.db
        .insertInto('organizations')
        .values({ ...org, id: '00000000-0000-4000-8000-000000000002' })
        .execute(),
    ).rejects.toThrow();
    const row = await store.db.selectFrom('organizations').selectAll().executeTakeFirstOrThrow();
    // Defaults written by the migration come back as booleans or 0/1 depending on the dialect.
    expect([true, 1]).toContain(row.members_can_use_personal_api_keys);
    await store.close();
  });
});

describe('events store migrations (chDB)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'burrow-evmig-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates its database and ledger, and applies a migration exactly once', async () => {
    const store = await openEventsStore({ dataDir, database: 'burrow_mig_test' });
    expect(store.backend).toBe('chdb');
    await store.ping();
    const migration = {
      name: '9999_probe',
      statements: () => [
        `CREATE TABLE IF NOT EXISTS ${store.table('probe')} (x UInt8) ENGINE = MergeTree ORDER BY x`,
      ],
    };
    const withProbe = [...EVENTS_MIGRATIONS, migration];
    expect(await migrateEvents(store, withProbe)).toEqual(['9999_probe']);
    expect(await migrateEvents(store, withProbe)).toEqual([]);
    const ledger = await store.query<{ name: string }>(
      `SELECT name FROM ${store.table('schema_migrations')} FINAL`,
    );
    expect(ledger.map((r) => r.name)).toContain('9999_probe');
    expect(ledger.filter((r) => r.name === '9999_probe')).toHaveLength(1);
    await store.insert('probe', [{ x: 7 }]);
    expect(await store.query(`SELECT x FROM ${store.table('probe')}`)).toEqual([{ x: 7 }]);
    await store.close();

    // This code's own list does not know the probe: as with a newer release's store, it refuses.
    await expect(openEventsStore({ dataDir, database: 'burrow_mig_test' })).rejects.toThrow(NewerDataError);
    const reopened = await openEventsStore({ dataDir, database: 'burrow_mig_test', migrate: false });
    expect(await reopened.query(`SELECT count() AS n FROM ${reopened.table('probe')}`)).toEqual([{ n: 1 }]);
    await reopened.close();
  });

  it('binds parameters instead of splicing them into SQL', async () => {
    // The store the test before left holds its probe migration, which this code does not know.
    const store = await openEventsStore({ dataDir, database: 'burrow_mig_test', migrate: false });
    const hostile = "x' OR 1=1 --\\";
    expect(await store.query('SELECT {v:String} AS v', { params: { v: hostile } })).toEqual([{ v: hostile }]);
    await store.close();
  });
});
