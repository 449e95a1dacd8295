import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The local admin token's file: readable by the server's user only, as the data directory is. */
export const adminTokenPath = (dataDir: string) => join(dataDir, 'admin.token');

/** Reads the token, or writes a new one (`wx`: two nodes starting at once keep the first). */
export function readOrCreateAdminToken(dataDir: string): string {
  const path = adminTokenPath(dataDir);
  try {
    writeFileSync(path, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFileSync(path, 'utf8').trim();
}
