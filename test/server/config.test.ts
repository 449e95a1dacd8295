import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('configuration', () => {
  it('has working defaults with an empty environment', () => {
    expect(loadConfig({})).toMatchObject({
      host: '127.0.0.1',
      port: 8010,
      dataDir: resolve('.burrow'),
      databaseUrl: undefined,
      clickhouseUrl: undefined,
      clickhouseDatabase: 'burrow',
      redisUrl: undefined,
      trustProxy: false,
      bodyLimit: 1048576,
    });
  });

  it('reads the object storage settings (symbol sets in S3) only when a bucket is named', () => {
    expect(loadConfig({}).objectStorage).toBeUndefined();
    expect(
      loadConfig({
        OBJECT_STORAGE_BUCKET: 'symbols',
        OBJECT_STORAGE_ACCESS_KEY_ID: 'k',
        OBJECT_STORAGE_SECRET_ACCESS_KEY: 's',
        OBJECT_STORAGE_ENDPOINT: 'http://minio:9000/',
        OBJECT_STORAGE_ERROR_TRACKING_SOURCE_MAPS_FOLDER: '/maps/',
      }).objectStorage,
    ).toEqual({
      bucket: 'symbols',
      region: 'us-east-1',
      endpoint: 'http://minio:9000',
      accessKeyId: 'k',
      secretAccessKey: 's',
      symbolSetsFolder: 'maps',
    });
  });

  it.each([
    [{ PORT: '70000' }, /PORT/],
    [{ PORT: '-1' }, /PORT/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ DATABASE_URL: 'not a url' }, /DATABASE_URL/],
    [{ CLICKHOUSE_URL: 'tcp://x:9000' }, /CLICKHOUSE_URL/],
    [{ REDIS_URL: 'http://x' }, /REDIS_URL/],
    [{ TRUST_PROXY: 'maybe' }, /TRUST_PROXY/],
    [{ OBJECT_STORAGE_BUCKET: 'symbols' }, /OBJECT_STORAGE_ACCESS_KEY_ID/],
    [
      {
        OBJECT_STORAGE_BUCKET: 'symbols',
        OBJECT_STORAGE_ACCESS_KEY_ID: 'k',
        OBJECT_STORAGE_SECRET_ACCESS_KEY: 's',
        OBJECT_STORAGE_ENDPOINT: 'ftp://x',
      },
      /OBJECT_STORAGE_ENDPOINT/,
    ],
    [{ TRUST_PROXY: '11' }, /TRUST_PROXY/],
    [{ TRUST_PROXY: '10.0.0.0/33' }, /TRUST_PROXY/],
    [{ TRUST_PROXY: '10.0.0.1,proxy.example.com' }, /TRUST_PROXY/],
    [{ TRUST_PROXY: '::1/129' }, /TRUST_PROXY/],
    [{ DATABASE_SCHEMA: 'x; drop table' }, /DATABASE_SCHEMA/],
    [{ CLICKHOUSE_DATABASE: 'a`b' }, /CLICKHOUSE_DATABASE/],
    [{ BODY_LIMIT: '10' }, /BODY_LIMIT/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
  ])('rejects %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it.each([
    ['false', false],
    ['0', false],
    ['true', 1],
    ['1', 1],
    ['2', 2],
    [' 10.0.0.1 , 10.1.0.0/16,loopback', ['10.0.0.1', '10.1.0.0/16', 'loopback']],
    ['fd00::/8,::1', ['fd00::/8', '::1']],
  ])('reads TRUST_PROXY=%s as %o (true is one proxy hop, never every peer)', (raw, expected) => {
    expect(loadConfig({ TRUST_PROXY: raw }).trustProxy).toEqual(expected);
  });

  it('reads every documented variable', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      BURROW_DATA_DIR: '/tmp/x',
      DATABASE_URL: 'postgres://u@h/db',
      DATABASE_SCHEMA: 'tenant_a',
      CLICKHOUSE_URL: 'https://u:p@ch:8443',
      CLICKHOUSE_DATABASE: 'analytics',
      REDIS_URL: 'redis://r:6379',
      REDIS_KEY_PREFIX: 'b1:',
      TRUST_PROXY: 'true',
      BODY_LIMIT: '4096',
      AUTH_CACHE_TTL_MS: '0',
      SHUTDOWN_TIMEOUT_MS: '500',
      LOG_LEVEL: 'debug',
      BURROW_ADMIN_EMAIL: 'ops@example.com',
    });
    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      dataDir: '/tmp/x',
      databaseSchema: 'tenant_a',
      clickhouseDatabase: 'analytics',
      redisKeyPrefix: 'b1:',
      trustProxy: 1,
      bodyLimit: 4096,
      authCacheTtlMs: 0,
      shutdownTimeoutMs: 500,
      logLevel: 'debug',
      adminEmail: 'ops@example.com',
    });
  });

  it('reads the isolation limits (docs/isolation.md) with defaults for a 24 GiB, 2-core machine', () => {
    expect(loadConfig({})).toMatchObject({
      queryConcurrency: 4,
      queryTeamShare: 2,
      queryTeamConcurrency: 8,
      exportQueryConcurrency: 1,
      engineMemoryLimit: 12 * 2 ** 30,
    });
    expect(
      loadConfig({
        QUERY_TEAM_SHARE: '3',
        BATCH_EXPORTS_QUERY_CONCURRENCY: '2',
        ENGINE_MEMORY_LIMIT: String(4 * 2 ** 30),
      }),
    ).toMatchObject({ queryTeamShare: 3, exportQueryConcurrency: 2, engineMemoryLimit: 4 * 2 ** 30 });
    for (const env of [
      { QUERY_TEAM_SHARE: '0' },
      { ENGINE_MEMORY_LIMIT: '1000' },
      { BATCH_EXPORTS_QUERY_CONCURRENCY: 'x' },
    ]) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
    }
  });

  it('documents every isolation variable in docs/isolation.md', () => {
    const page = readFileSync(resolve('docs/isolation.md'), 'utf8');
    for (const name of [
      'QUERY_CONCURRENCY',
      'QUERY_TEAM_SHARE',
      'QUERY_TEAM_CONCURRENCY',
      'BATCH_EXPORTS_QUERY_CONCURRENCY',
      'ENGINE_MEMORY_LIMIT',
    ]) {
      expect(page).toContain(`| \`${name}\``);
    }
  });

  // The table in docs/configuration.md is the list of settings: every row is read by loadConfig,
  // every variable loadConfig reads has a row, and every documented default is accepted.
  describe('docs/configuration.md', () => {
    const ROOT = join(import.meta.dirname, '..', '..');
    const rows = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8')
      .split('\n')
      .map((line) => /^\|\s*`([A-Z][A-Z0-9_]+)`\s*\|\s*([^|]*?)\s*\|/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ name: m[1] as string, default: /^`([^`]*)`$/.exec(m[2] as string)?.[1] }));
    const source = readFileSync(join(ROOT, 'src', 'config.ts'), 'utf8');
    const read = new Set(
      [...source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)|'([A-Z][A-Z0-9_]{2,})'/g)].map(
        (m) => (m[1] ?? m[2]) as string,
      ),
    );

    it('documents every variable the server reads, and nothing else', () => {
      const documented = new Set(rows.map((r) => r.name));
      expect(documented.size).toBeGreaterThanOrEqual(40);
      expect([...read].filter((v) => !documented.has(v)).sort()).toEqual([]);
      expect([...documented].filter((v) => !read.has(v)).sort()).toEqual([]);
    });

    it('accepts every documented default', () => {
      for (const row of rows) {
        if (row.default === undefined) continue;
        expect(() => loadConfig({ [row.name]: row.default }), row.name).not.toThrow();
      }
    });
  });
});
