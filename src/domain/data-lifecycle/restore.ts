import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { BackupError, type BackupManifest, INCOMPLETE, MANIFEST, readBackup } from './backup.js';

export interface RestoreResult {
  restored_from: string;
  data_dir: string;
  /** Where the data directory that was there went (nothing is deleted). */
  moved_aside: string | null;
  backup: BackupManifest;
}

/** SQLite's own check of the backup's metadata, before anything is moved. */
function checkSqlite(file: string): void {
  let db: SqliteDatabase.Database | undefined;
  try {
    db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
    const result = db.pragma('integrity_check', { simple: true });
    if (result !== 'ok')
      throw new BackupError(
        `the backup's metadata.sqlite fails SQLite's integrity check: ${String(result).slice(0, 300)}`,
      );
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`the backup's metadata.sqlite cannot be read: ${(error as Error).message}`);
  } finally {
    db?.close();
  }
}

/**
 * Brings a backup back as the data directory, with the server stopped (the caller checks). The
 * backup is checked first (complete, known format, SQLite integrity); it is copied beside the data
 * directory and renamed into place, so an interrupted restore leaves the old directory where it
 * was; an existing data directory is moved aside, never deleted.
 */
export async function restoreDataDir(
  backupDir: string,
  dataDir: string,
  journalDir: string,
  now: () => Date,
): Promise<RestoreResult> {
  const from = resolve(backupDir);
  const to = resolve(dataDir);
  const backup = await readBackup(from);
  checkSqlite(join(from, 'metadata.sqlite'));
  const stamp = now().toISOString().replace(/[:.]/g, '-');
  const staging = join(dirname(to), `.${basename(to)}.restoring-${stamp}`);
  await rm(staging, { recursive: true, force: true });
  await cp(from, staging, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) =>
      ![join(from, MANIFEST), join(from, INCOMPLETE), join(from, 'capture-journal')].includes(src),
  });
  let movedAside: string | null = null;
  if (existsSync(to) && (await readdir(to)).length > 0) {
    movedAside = `${to}.before-restore-${stamp}`;
    await rename(to, movedAside);
  } else if (existsSync(to)) {
    await rm(to, { recursive: true });
  }
  await rename(staging, to);
  // The journal goes where this configuration keeps it (inside the data directory by default).
  const journal = resolve(journalDir);
  if (existsSync(join(from, 'capture-journal'))) {
    if (existsSync(journal) && (await readdir(journal)).length > 0)
      await rename(journal, `${journal}.before-restore-${stamp}`);
    else await rm(journal, { recursive: true, force: true });
    await mkdir(dirname(journal), { recursive: true });
    await cp(join(from, 'capture-journal'), journal, { recursive: true });
  }
  return { restored_from: from, data_dir: to, moved_aside: movedAside, backup };
}
