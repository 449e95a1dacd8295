import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { destinations } from '../adapters/destinations/index.js';
import type { Config } from '../config.js';
import type { ExportDeps } from '../domain/batch-exports/deps.js';
import { secretBox } from '../domain/batch-exports/secrets.js';
import type { Deps } from '../domain/deps.js';

/**
 * Without BURROW_SECRET_KEY a random key is kept in the data directory (mode 0600), which suits one
 * node; nodes sharing a PostgreSQL database must all be given the same BURROW_SECRET_KEY.
 */
function secretKey(config: Config): string {
  if (config.secretKey) return config.secretKey;
  const path = join(config.dataDir, 'secret.key');
  mkdirSync(config.dataDir, { recursive: true });
  try {
    // node:crypto's randomBytes, not the global Web Crypto: loading that cost ~10 ms of every start.
    writeFileSync(path, `${randomBytes(32).toString('hex')}\n`, {
      flag: 'wx',
      mode: 0o600,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFileSync(path, 'utf8').trim();
}

/** What batch exports run with: the stores, the secret box for credentials, the destination clients. */
export function exportDeps(config: Config, deps: Deps): ExportDeps {
  return {
    ...deps,
    secrets: secretBox(secretKey(config)),
    destinations: destinations(
      { allowPrivate: config.batchExports.allowPrivateNetworks, dnsServers: config.dnsServers },
      config.batchExports.pageRows,
      { ambientCredentials: config.batchExports.s3AmbientCredentials },
    ),
    settings: { ...config.batchExports },
  };
}
