import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BootstrapResult } from '../domain/organizations/bootstrap.js';

/** Written once, readable by the owner only: it holds the first full-access key. */
export function writeBootstrapFile(dataDir: string, result: BootstrapResult): string {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'bootstrap.json');
  writeFileSync(path, `${JSON.stringify(result, null, 2)}\n`, { mode: 0o600, flag: 'w' });
  return path;
}
