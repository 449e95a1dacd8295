import { resolve } from 'node:path';
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

  it.each([
    [{ PORT: '70000' }, /PORT/],
    [{ PORT: '-1' }, /PORT/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ DATABASE_URL: 'not a url' }, /DATABASE_URL/],
    [{ CLICKHOUSE_URL: 'tcp://x:9000' }, /CLICKHOUSE_URL/],
    [{ REDIS_URL: 'http://x' }, /REDIS_URL/],
    [{ TRUST_PROXY: 'maybe' }, /TRUST_PROXY/],
    [{ DATABASE_SCHEMA: 'x; drop table' }, /DATABASE_SCHEMA/],
    [{ CLICKHOUSE_DATABASE: 'a`b' }, /CLICKHOUSE_DATABASE/],
    [{ BODY_LIMIT: '10' }, /BODY_LIMIT/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
  ])('rejects %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
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
      trustProxy: true,
      bodyLimit: 4096,
      authCacheTtlMs: 0,
      shutdownTimeoutMs: 500,
      logLevel: 'debug',
      adminEmail: 'ops@example.com',
    });
  });
});
