import { NewerDataError, unknownMigrations } from '../shared/newer-data.js';
import { eventsTable } from './migrations/0001_events.js';
import { personsTables } from './migrations/0002_persons.js';
import { sessionsTable } from './migrations/0003_sessions.js';
import { sessionReplayTables } from './migrations/0004_session_replay.js';
import { sessionsViewTuple } from './migrations/0005_sessions_view.js';
import { cohortPeopleTable } from './migrations/0006_cohort_people.js';
import { logsTable } from './migrations/0007_logs.js';
import type { EventsStore } from './store.js';

/**
 * Forward-only schema changes for the analytics engine, applied in order and recorded in
 * `schema_migrations`. Each statement must be idempotent (IF NOT EXISTS), because a crash between
 * the DDL and the bookkeeping insert re-runs it.
 */
export interface EventsMigration {
  name: string;
  statements: (store: EventsStore) => string[];
}

export const EVENTS_MIGRATIONS: EventsMigration[] = [
  eventsTable,
  personsTables,
  sessionsTable,
  sessionReplayTables,
  sessionsViewTuple,
  cohortPeopleTable,
  logsTable,
];

export async function migrateEvents(
  store: EventsStore,
  migrations: readonly EventsMigration[] = EVENTS_MIGRATIONS,
): Promise<string[]> {
  const ledger = store.table('schema_migrations');
  await store.command(
    `CREATE TABLE IF NOT EXISTS ${ledger} (name String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3)) ` +
      'ENGINE = ReplacingMergeTree ORDER BY name',
  );
  const names = (
    await store.query<{ name: string }>(`SELECT name FROM ${ledger} FINAL ORDER BY applied_at, name`)
  ).map((row) => row.name);
  // Before any DDL: a newer Burrow's tables must not meet this code's statements.
  const unknown = unknownMigrations(
    names,
    migrations.map((m) => m.name),
  );
  if (unknown.length > 0) throw new NewerDataError('events', unknown);
  const done = new Set(names);
  const applied: string[] = [];
  for (const migration of migrations) {
    if (done.has(migration.name)) continue;
    for (const statement of migration.statements(store)) await store.command(statement);
    await store.insert('schema_migrations', [{ name: migration.name }]);
    applied.push(migration.name);
  }
  return applied;
}

/** What has run, what would run, and what this code does not know; changes nothing. */
export async function eventsMigrationStatus(
  store: EventsStore,
  migrations: readonly EventsMigration[] = EVENTS_MIGRATIONS,
): Promise<{ applied: string[]; pending: string[]; unknown: string[] }> {
  const ledger = store.table('schema_migrations');
  const exists = await store.query<{ n: number }>(
    'SELECT count() AS n FROM system.tables WHERE database = {db:String} AND name = {name:String}',
    { params: { db: store.database, name: 'schema_migrations' } },
  );
  const applied =
    Number(exists[0]?.n ?? 0) > 0
      ? (
          await store.query<{ name: string }>(`SELECT name FROM ${ledger} FINAL ORDER BY applied_at, name`)
        ).map((row) => row.name)
      : [];
  const done = new Set(applied);
  return {
    applied,
    pending: migrations.map((m) => m.name).filter((name) => !done.has(name)),
    unknown: unknownMigrations(
      applied,
      migrations.map((m) => m.name),
    ),
  };
}
