import { type Dirent, existsSync, readdirSync, statfsSync, statSync } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Config } from '../config.js';
import { eventsStoreOptions } from '../server/runtime.js';
import { VERSION } from '../server/version.js';
import { eventsMigrationStatus } from '../store/events/migrate.js';
import { openEventsStore } from '../store/events/store.js';
import { openMetaStore } from '../store/meta/db.js';
import { metaMigrationStatus } from '../store/meta/migrate.js';
import { runningServer } from './running-server.js';

/** One line of `burrow doctor`: what was checked, what was found, and what to do about it. */
export interface DoctorCheck {
  status: 'ok' | 'warn' | 'fail';
  check: string;
  detail: string;
  fix?: string | undefined;
}

const GiB = 1024 ** 3;
/** Below this the engine's merges (which need room for a copy of the parts they merge) start failing. */
const FAIL_FREE_BYTES = 1 * GiB;
const WARN_FREE_BYTES = 5 * GiB;
/** The walk of the data directory stops here: a doctor must answer in seconds on any disk. */
const MAX_FILES_WALKED = 200_000;

const size = (bytes: number) =>
  bytes >= GiB ? `${(bytes / GiB).toFixed(1)} GiB` : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

function treeSize(dir: string, budget = { files: MAX_FILES_WALKED }): number {
  let total = 0;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (budget.files-- <= 0) break;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += treeSize(path, budget);
    else if (entry.isFile()) total += statSync(path, { throwIfNoEntry: false })?.size ?? 0;
  }
  return total;
}

function migrationCheck(
  store: 'metadata' | 'events',
  status: { applied: string[]; pending: string[]; unknown: string[] },
): DoctorCheck {
  const check = `${store} migrations`;
  if (status.unknown.length > 0) {
    return {
      status: 'fail',
      check,
      detail: `written by a newer Burrow (unknown: ${status.unknown.join(', ')})`,
      fix: 'run the newer version, or restore the backup taken before the upgrade (docs/operations.md, "Upgrades")',
    };
  }
  if (status.pending.length > 0) {
    return {
      status: 'warn',
      check,
      detail: `${status.applied.length} applied, ${status.pending.length} pending (${status.pending.join(', ')})`,
      fix: 'back up first (docs/operations.md, "Backups"), then start the server or run `burrow migrate`',
    };
  }
  return { status: 'ok', check, detail: `${status.applied.length} applied, none pending` };
}

async function metaChecks(config: Config): Promise<DoctorCheck[]> {
  const where = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : 'SQLite (metadata.sqlite)';
  let store: Awaited<ReturnType<typeof openMetaStore>>;
  try {
    store = await openMetaStore({ ...config, migrate: false });
  } catch (error) {
    return [
      {
        status: 'fail',
        check: 'metadata store',
        detail: `${where} does not open: ${(error as Error).message}`,
        fix: config.databaseUrl
          ? 'check DATABASE_URL and that the server accepts connections'
          : "check the file's permissions",
      },
    ];
  }
  try {
    const db = store.db as unknown as Kysely<unknown>;
    const checks: DoctorCheck[] = [];
    if (store.dialect.name === 'sqlite') {
      const version = await sql<{ v: string }>`SELECT sqlite_version() AS v`.execute(db);
      const quick = await sql<{ quick_check: string }>`PRAGMA quick_check`.execute(db);
      const result = quick.rows.map((r) => Object.values(r)[0]).join('; ');
      checks.push(
        result === 'ok'
          ? {
              status: 'ok',
              check: 'metadata store',
              detail: `${where}, SQLite ${version.rows[0]?.v}, integrity ok`,
            }
          : {
              status: 'fail',
              check: 'metadata store',
              detail: `${where}: integrity check says ${result.slice(0, 300)}`,
              fix: 'stop the server and restore the last backup (`burrow restore <dir>`)',
            },
      );
    } else {
      const version = await sql<{ v: string }>`SHOW server_version`.execute(db);
      checks.push({
        status: 'ok',
        check: 'metadata store',
        detail: `${where}, server ${Object.values(version.rows[0] ?? {})[0]}`,
      });
    }
    checks.push(migrationCheck('metadata', await metaMigrationStatus(db, { schema: config.databaseSchema })));
    return checks;
  } finally {
    await store.close();
  }
}

async function eventsChecks(config: Config, serverRunning: boolean): Promise<DoctorCheck[]> {
  if (!config.clickhouseUrl && serverRunning) {
    // Embedded chDB: one process per data directory, and the running server holds it.
    return [
      {
        status: 'ok',
        check: 'events store',
        detail: 'embedded chDB, held by the running server (its /_health answers); stop it for a full check',
      },
    ];
  }
  let store: Awaited<ReturnType<typeof openEventsStore>>;
  try {
    store = await openEventsStore({
      ...eventsStoreOptions(config),
      personColumnsRefreshMs: 0,
      migrate: false,
    });
  } catch (error) {
    return [
      {
        status: 'fail',
        check: 'events store',
        detail: `${config.clickhouseUrl ? 'ClickHouse (CLICKHOUSE_URL)' : 'embedded chDB'} does not open: ${(error as Error).message.slice(0, 300)}`,
        fix: config.clickhouseUrl
          ? 'check CLICKHOUSE_URL and that the server accepts queries'
          : 'another process may hold the data directory: stop it and run the doctor again',
      },
    ];
  }
  try {
    const [version] = await store.query<{ v: string }>('SELECT version() AS v');
    const [parts] = await store.query<{ parts: number; bytes: number; rows: number }>(
      'SELECT count() AS parts, sum(bytes_on_disk) AS bytes, sum(rows) AS rows FROM system.parts WHERE active AND database = {db:String}',
      { params: { db: store.database } },
    );
    return [
      {
        status: 'ok',
        check: 'events store',
        detail: `${config.clickhouseUrl ? 'ClickHouse server' : 'embedded chDB'} ${version?.v}, ${Number(parts?.rows ?? 0).toLocaleString('en')} rows in ${parts?.parts ?? 0} parts, ${size(Number(parts?.bytes ?? 0))}`,
      },
      migrationCheck('events', await eventsMigrationStatus(store)),
    ];
  } finally {
    await store.close();
  }
}

function diskChecks(config: Config): DoctorCheck[] {
  const dir = config.dataDir;
  const stats = statfsSync(dir);
  const free = stats.bavail * stats.bsize;
  const total = stats.blocks * stats.bsize;
  const used = treeSize(dir);
  const detail = `${size(free)} free of ${size(total)}; the data directory holds ${size(used)}`;
  if (free < FAIL_FREE_BYTES)
    return [
      {
        status: 'fail',
        check: 'disk',
        detail,
        fix: 'free space or move the data directory (BURROW_DATA_DIR): the engine needs room to merge, and capture stops when the journal cannot grow',
      },
    ];
  if (free < WARN_FREE_BYTES || free < total * 0.1)
    return [
      {
        status: 'warn',
        check: 'disk',
        detail,
        fix: 'plan more space, or set a retention period on large projects',
      },
    ];
  return [{ status: 'ok', check: 'disk', detail }];
}

/** Every check, in the order a person would want them: nothing here changes the data. */
export async function runDoctor(config: Config): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [
    { status: 'ok', check: 'versions', detail: `Burrow ${VERSION}, Node ${process.versions.node}` },
  ];
  const embedded = !config.databaseUrl || !config.clickhouseUrl;
  if (embedded) {
    if (!existsSync(config.dataDir)) {
      checks.push({
        status: 'warn',
        check: 'data directory',
        detail: `${config.dataDir} does not exist yet`,
        fix: '`npm start` creates it; or pass --data-dir / BURROW_DATA_DIR if it lives elsewhere',
      });
      return checks;
    }
    try {
      await access(config.dataDir, constants.W_OK | constants.R_OK);
      checks.push({
        status: 'ok',
        check: 'data directory',
        detail: `${config.dataDir}, readable and writable`,
      });
    } catch {
      checks.push({
        status: 'fail',
        check: 'data directory',
        detail: `${config.dataDir} is not readable and writable by this user`,
        fix: "run as the user that runs the server, or fix the directory's owner",
      });
      return checks;
    }
    checks.push(...diskChecks(config));
  }
  const running = (await runningServer(config)) !== null;
  checks.push({
    status: 'ok',
    check: 'server',
    detail: running ? `answering on port ${config.port}` : `not answering on port ${config.port}`,
  });
  checks.push(...(await metaChecks(config)));
  checks.push(...(await eventsChecks(config, running)));
  return checks;
}

/** The human form: one line per check, then what to do. */
export function formatDoctor(checks: readonly DoctorCheck[]): string {
  const width = Math.max(...checks.map((c) => c.check.length));
  const lines = checks.map((c) => `${c.status.padEnd(4)}  ${c.check.padEnd(width)}  ${c.detail}`);
  const todo = checks.filter((c) => c.fix);
  if (todo.length > 0) {
    lines.push('', 'What to do:');
    for (const c of todo) lines.push(`- ${c.check}: ${c.fix}`);
  }
  return `${lines.join('\n')}\n`;
}
