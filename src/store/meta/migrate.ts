import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
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
import * as m0045 from './migrations/0045_experiments.js';

type MigrationModule = { up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> };

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
  '0045_experiments': m0045,
};

class InCodeMigrations implements MigrationProvider {
  constructor(private readonly dialect: SqlDialect) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const types = this.dialect.types;
    return Object.fromEntries(
      Object.entries(MIGRATIONS).map(([name, mod]) => [
        name,
        { up: (db: Kysely<unknown>) => mod.up(db, types) },
      ]),
    );
  }
}

/** Applies the migrations not yet in the ledger (whose place the dialect names). */
export async function migrateToLatest(db: Kysely<unknown>, schema?: string): Promise<string[]> {
  const dialect = dialectOf(db);
  const ledger = dialect.migrationTableSchema(schema);
  const migrator = new Migrator({
    db,
    provider: new InCodeMigrations(dialect),
    ...(ledger ? { migrationTableSchema: ledger } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
