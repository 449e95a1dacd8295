import { randomBytes } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import { access, copyFile, cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type Kysely, sql } from 'kysely';
import { eventsMigrationStatus } from '../../store/events/migrate.js';
import type { EventsStore } from '../../store/events/store.js';
import { metaMigrationStatus } from '../../store/meta/migrate.js';

/**
 * `burrow backup <dir>`: a consistent copy of an embedded installation while it runs.
 *
 * - Capture journal first: an event acknowledged before the backup is either already in the
 *   engine's parts (frozen next) or still in a journal segment (copied here); one in both comes
 *   back once, because a replayed journal row keeps its uuid and `events` collapses duplicates.
 * - The engine's tables: `ALTER TABLE … FREEZE` hard-links each table's current parts (an instant
 *   snapshot that merges cannot change), which are then copied beside the database's metadata in
 *   the layout the engine reads, so a restore is a plain copy back.
 * - The metadata store: `VACUUM INTO`, SQLite's consistent copy of an open database.
 * - Small files (bootstrap.json, the key that seals stored secrets).
 *
 * The folder holds `backup.incomplete` until everything is written, then `backup.json` (the
 * manifest `restore` checks). Copies go through libuv's thread pool: the event loop stays free.
 */
export const MANIFEST = 'backup.json';
export const INCOMPLETE = 'backup.incomplete';
const FORMAT = 1;
/** Small files at the top of the data directory that a restore needs. */
const ROOT_FILES = ['bootstrap.json', 'secret.key'];

export class BackupError extends Error {}

export interface BackupSources {
  dataDir: string;
  journalDir: string;
  /** SQLite metadata (the embedded store); PostgreSQL is backed up with pg_dump instead. */
  meta: Kysely<unknown>;
  events: EventsStore;
  version: string;
  now: () => Date;
}

export interface BackupManifest {
  format: number;
  burrow_version: string;
  created_at: string;
  database: string;
  metadata_migrations: string[];
  events_migrations: string[];
  tables: Array<{ name: string; parts: number; rows: number; bytes: number }>;
  journal_files: number;
  seconds: number;
}

async function isEmptyOrMissing(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

/** The target must be new or empty, and outside the data directory (a backup inside it would back itself up). */
export async function checkBackupTarget(target: string, dataDir: string): Promise<string> {
  const dir = resolve(target);
  const data = resolve(dataDir);
  if (dir === data || dir.startsWith(`${data}/`))
    throw new BackupError(
      `the backup folder ${dir} is inside the data directory ${data}: choose another place`,
    );
  if (!(await isEmptyOrMissing(dir)))
    throw new BackupError(
      `the backup folder ${dir} is not empty: give a new or empty folder (nothing was written)`,
    );
  return dir;
}

const frozenName = (now: Date) => `burrow_backup_${now.getTime()}_${randomBytes(3).toString('hex')}`;

/** `store/<3 chars>/<uuid>`: where the engine keeps a table's parts or a database's table definitions. */
const storePath = (uuid: string) => join('store', uuid.slice(0, 3), uuid);

async function copyEngine(events: EventsStore, engineDir: string, out: string, name: string) {
  const db = events.database;
  const [database] = await events.query<{ uuid: string }>(
    'SELECT toString(uuid) AS uuid FROM system.databases WHERE name = {db:String}',
    { params: { db } },
  );
  if (!database) throw new BackupError(`the engine has no database ${db}`);
  const tables = await events.query<{ name: string; uuid: string; engine: string }>(
    "SELECT name, toString(uuid) AS uuid, engine FROM system.tables WHERE database = {db:String} AND engine LIKE '%MergeTree' ORDER BY name",
    { params: { db } },
  );
  // Definitions: the database's entry and its tables' .sql files, with the engine's symlinks as they are.
  await mkdir(join(out, 'metadata'), { recursive: true });
  await cp(join(engineDir, 'metadata', `${db}.sql`), join(out, 'metadata', `${db}.sql`));
  await cp(join(engineDir, 'metadata', db), join(out, 'metadata', db), { verbatimSymlinks: true });
  if (existsSync(join(engineDir, 'data', db)))
    await cp(join(engineDir, 'data', db), join(out, 'data', db), { recursive: true, verbatimSymlinks: true });
  await cp(join(engineDir, storePath(database.uuid)), join(out, storePath(database.uuid)), {
    recursive: true,
  });

  const summary: BackupManifest['tables'] = [];
  for (const t of tables) {
    await events.command(`ALTER TABLE ${events.table(t.name)} FREEZE WITH NAME '${name}'`);
    const to = join(out, storePath(t.uuid));
    await mkdir(join(to, 'detached'), { recursive: true });
    const version = join(engineDir, storePath(t.uuid), 'format_version.txt');
    if (existsSync(version)) await copyFile(version, join(to, 'format_version.txt'));
    const frozen = join(engineDir, 'shadow', name, storePath(t.uuid));
    if (existsSync(frozen)) await cp(frozen, to, { recursive: true });
    const [parts] = await events.query<{ parts: number; rows: number; bytes: number }>(
      'SELECT count() AS parts, sum(rows) AS rows, sum(bytes_on_disk) AS bytes FROM system.parts WHERE database = {db:String} AND table = {t:String} AND active',
      { params: { db, t: t.name } },
    );
    summary.push({
      name: t.name,
      parts: Number(parts?.parts ?? 0),
      rows: Number(parts?.rows ?? 0),
      bytes: Number(parts?.bytes ?? 0),
    });
  }
  return summary;
}

/** Makes the backup; throws BackupError for what the user can fix (target, configuration). */
export async function backupDataDir(source: BackupSources, target: string): Promise<BackupManifest> {
  const started = performance.now();
  const dir = await checkBackupTarget(target, source.dataDir);
  await mkdir(dir, { recursive: true });
  await access(dir, constants.W_OK);
  await writeFile(join(dir, INCOMPLETE), `started ${source.now().toISOString()}\n`);
  const name = frozenName(source.now());
  const engineDir = join(source.dataDir, 'events');
  try {
    let journalFiles = 0;
    if (existsSync(source.journalDir)) {
      await cp(source.journalDir, join(dir, 'capture-journal'), { recursive: true });
      journalFiles = (await readdir(join(dir, 'capture-journal'))).length;
    }
    const tables = await copyEngine(source.events, engineDir, join(dir, 'events'), name);
    await sql`VACUUM INTO ${join(dir, 'metadata.sqlite')}`.execute(source.meta);
    for (const file of ROOT_FILES) {
      const from = join(source.dataDir, file);
      if (existsSync(from)) await copyFile(from, join(dir, file));
    }
    const manifest: BackupManifest = {
      format: FORMAT,
      burrow_version: source.version,
      created_at: source.now().toISOString(),
      database: source.events.database,
      metadata_migrations: (await metaMigrationStatus(source.meta)).applied,
      events_migrations: (await eventsMigrationStatus(source.events)).applied,
      tables,
      journal_files: journalFiles,
      seconds: Number(((performance.now() - started) / 1000).toFixed(3)),
    };
    await writeFile(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    await rm(join(dir, INCOMPLETE));
    return manifest;
  } finally {
    // The frozen hard links are the engine's to drop; a failure here leaves only disk to reclaim.
    await rm(join(engineDir, 'shadow', name), { recursive: true, force: true }).catch(() => {});
  }
}

/** A backup folder a restore may use: complete, of a known format, with its parts present. */
export async function readBackup(dir: string): Promise<BackupManifest> {
  const where = resolve(dir);
  if (existsSync(join(where, INCOMPLETE)))
    throw new BackupError(`${where} is an incomplete backup (it was interrupted): use an earlier one`);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(await readFile(join(where, MANIFEST), 'utf8')) as BackupManifest;
  } catch {
    throw new BackupError(`${where} has no readable ${MANIFEST}: not a Burrow backup, or a damaged one`);
  }
  if (manifest.format !== FORMAT)
    throw new BackupError(
      `${where} is a backup of format ${manifest.format}; this version reads format ${FORMAT}`,
    );
  for (const part of ['metadata.sqlite', join('events', 'metadata', `${manifest.database}.sql`)]) {
    const info = await stat(join(where, part)).catch(() => null);
    if (!info?.isFile()) throw new BackupError(`${where} lacks ${part}: a damaged backup`);
  }
  return manifest;
}
