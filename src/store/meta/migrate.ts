import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import { NewerDataError, unknownMigrations } from '../shared/newer-data.js';
import { type ColumnTypes, dialectOf, type SqlDialect } from './dialect.js';
import * as m0001 from './migrations/0001_init.js';
import * as m0002 from './migrations/0002_persons.js';
import * as m0003 from './migrations/0003_org_access.js';
import * as m0004 from './migrations/0004_playlists.js';
import * as m0005 from './migrations/0005_batch_exports.js';
import * as m0006 from './migrations/0006_actions.js';
import * as m0007 from './migrations/0007_batch_export_offsets.js';
import * as m0008 from './migrations/0008_invite_tokens.js';
import * as m0010 from './migrations/0010_backfill_rerun.js';
import * as m0012 from './migrations/0012_feature_flags.js';
import * as m0013 from './migrations/0013_project_secret_keys.js';
import * as m0015 from './migrations/0015_definitions.js';
import * as m0016 from './migrations/0016_cohorts.js';
import * as m0020 from './migrations/0020_insights_dashboards.js';
import * as m0030 from './migrations/0030_team_modifiers.js';
import * as m0034 from './migrations/0034_team_settings.js';
import * as m0040 from './migrations/0040_surveys.js';
import * as m0041 from './migrations/0041_llm_prompts.js';
import * as m0044 from './migrations/0044_error_tracking.js';
import * as m0045 from './migrations/0045_experiments.js';
import * as m0046 from './migrations/0046_async_deletions.js';
import * as m0047 from './migrations/0047_error_tracking_rules.js';
import * as m0048 from './migrations/0048_hog_functions.js';
import * as m0049 from './migrations/0049_experiment_extras.js';
import * as m0050 from './migrations/0050_hog_queue.js';
import * as m0051 from './migrations/0051_destination_state.js';
import * as m0052 from './migrations/0052_hog_queue_per_destination.js';

/**
 * `rewritesData`: the migration changes or moves existing rows (not only adds tables, columns or
 * indexes); on SQLite a copy of the database is taken before it runs (see `migrateToLatest`).
 */
export type MigrationModule = {
  up(db: Kysely<unknown>, t: ColumnTypes): Promise<void>;
  rewritesData?: boolean;
};

/** Ordered by name; a migration is never edited once released, only followed by a new one. */
const MIGRATIONS: Record<string, MigrationModule> = {
  '0001_init': m0001,
  '0002_persons': m0002,
  '0003_org_access': m0003,
  '0004_playlists': m0004,
  '0005_batch_exports': m0005,
  '0006_actions': m0006,
  '0007_batch_export_offsets': m0007,
  '0008_invite_tokens': m0008,
  '0010_backfill_rerun': m0010,
  '0012_feature_flags': m0012,
  '0013_project_secret_keys': m0013,
  '0015_definitions': m0015,
  '0016_cohorts': m0016,
  '0020_insights_dashboards': m0020,
  '0030_team_modifiers': m0030,
  '0034_team_settings': m0034,
  '0040_surveys': m0040,
  '0041_llm_prompts': m0041,
  '0044_error_tracking': m0044,
  '0045_experiments': m0045,
  '0046_async_deletions': m0046,
  '0047_error_tracking_rules': m0047,
  '0048_hog_functions': m0048,
  '0049_experiment_extras': m0049,
  '0050_hog_queue': m0050,
  '0051_destination_state': m0051,
  '0052_hog_queue_per_destination': m0052,
};

class InCodeMigrations implements MigrationProvider {
  constructor(
    private readonly dialect: SqlDialect,
    private readonly modules: Record<string, MigrationModule>,
  ) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const types = this.dialect.types;
    return Object.fromEntries(
      Object.entries(this.modules).map(([name, mod]) => [
        name,
        { up: (db: Kysely<unknown>) => mod.up(db, types) },
      ]),
    );
  }
}

export interface MigrateOptions {
  /** The PostgreSQL schema Burrow uses, if any. */
  schema?: string | undefined;
  /** Where a copy of a SQLite database goes before a migration that rewrites data. */
  backupDir?: string | undefined;
  /** Tests only: another list of migrations. */
  migrations?: Record<string, MigrationModule> | undefined;
  now?: (() => Date) | undefined;
}

export interface MetaMigrationStatus {
  applied: string[];
  pending: string[];
  /** In the ledger but not in this code: a newer Burrow wrote the store. */
  unknown: string[];
}

/** The ledger's names, oldest first; none when the store was never migrated. */
async function ledgerNames(db: Kysely<unknown>, ledgerSchema: string | undefined): Promise<string[]> {
  const table = ledgerSchema ? sql.table(`${ledgerSchema}.kysely_migration`) : sql.table('kysely_migration');
  try {
    const { rows } = await sql<{ name: string }>`SELECT name FROM ${table} ORDER BY name`.execute(db);
    return rows.map((r) => r.name);
  } catch {
    // No ledger yet: a new store.
    return [];
  }
}

/** What has run, what would run, and what this code does not know; changes nothing. */
export async function metaMigrationStatus(
  db: Kysely<unknown>,
  options: MigrateOptions = {},
): Promise<MetaMigrationStatus> {
  const dialect = dialectOf(db);
  const modules = options.migrations ?? MIGRATIONS;
  const applied = await ledgerNames(db, dialect.migrationTableSchema(options.schema));
  const done = new Set(applied);
  return {
    applied,
    pending: Object.keys(modules)
      .sort()
      .filter((name) => !done.has(name)),
    unknown: unknownMigrations(applied, Object.keys(modules)),
  };
}

/** `VACUUM INTO` writes a consistent, compacted copy while the database stays open. */
async function backupSqlite(db: Kysely<unknown>, dir: string, label: string, now: Date): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const file = join(dir, `metadata-before-${label}-${stamp}.sqlite`);
  await sql`VACUUM INTO ${file}`.execute(db);
  return file;
}

/**
 * Applies the migrations not yet in the ledger (whose place the dialect names). Refuses, before
 * changing anything, a store that a newer Burrow migrated; on SQLite, copies the database first
 * when a pending migration rewrites existing rows (PostgreSQL: pg_dump before upgrading, see
 * docs/operations.md).
 */
export async function migrateToLatest(
  db: Kysely<unknown>,
  schemaOrOptions?: string | MigrateOptions,
): Promise<string[]> {
  const options: MigrateOptions =
    typeof schemaOrOptions === 'string' || schemaOrOptions === undefined
      ? { schema: schemaOrOptions }
      : schemaOrOptions;
  const dialect = dialectOf(db);
  const modules = options.migrations ?? MIGRATIONS;
  const status = await metaMigrationStatus(db, options);
  if (status.unknown.length > 0) throw new NewerDataError('metadata', status.unknown);
  const rewrites = status.pending.filter((name) => modules[name]?.rewritesData);
  if (rewrites.length > 0 && status.applied.length > 0 && dialect.name === 'sqlite' && options.backupDir) {
    await backupSqlite(db, options.backupDir, rewrites[0] as string, (options.now ?? (() => new Date()))());
  }
  const ledger = dialect.migrationTableSchema(options.schema);
  const migrator = new Migrator({
    db,
    provider: new InCodeMigrations(dialect, modules),
    ...(ledger ? { migrationTableSchema: ledger } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
