import { resolve } from 'node:path';

/** Everything Burrow reads from its environment, parsed once at start. */
export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  databaseSchema: string | undefined;
  clickhouseUrl: string | undefined;
  clickhouseDatabase: string;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  adminApiKey: string | undefined;
  adminEmail: string;
  logLevel: string;
  trustProxy: boolean;
  bodyLimit: number;
  shutdownTimeoutMs: number;
  authCacheTtlMs: number;
  ingestBatchRows: number;
  ingestBatchDelayMs: number;
  ingestMaxPendingRows: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}`);
  return value;
}

function bool(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').toLowerCase();
  if (['', '0', 'false', 'no', 'off'].includes(raw)) return false;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use one of ${protocols.join(', ')}`);
  }
  return raw;
}

function oneOf(env: Env, name: string, allowed: string[], fallback: string): string {
  const raw = env[name] || fallback;
  if (!allowed.includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}`);
  return raw;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

function identifier(env: Env, name: string, fallback?: string): string | undefined {
  const raw = env[name] || fallback;
  if (raw !== undefined && !IDENTIFIER.test(raw)) {
    throw new ConfigError(`${name} must be a plain identifier (letters, digits, underscore)`);
  }
  return raw;
}

export const ADMIN_KEY_PATTERN = /^phx_[A-Za-z0-9]{16,128}$/;

export function loadConfig(env: Env = process.env): Config {
  const adminApiKey = env.BURROW_ADMIN_API_KEY || undefined;
  if (adminApiKey !== undefined && !ADMIN_KEY_PATTERN.test(adminApiKey)) {
    throw new ConfigError('BURROW_ADMIN_API_KEY must be "phx_" followed by 16 to 128 letters or digits');
  }
  return {
    host: env.HOST || '127.0.0.1',
    port: int(env, 'PORT', 8010, 0, 65535),
    dataDir: resolve(env.BURROW_DATA_DIR || '.burrow'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databaseSchema: identifier(env, 'DATABASE_SCHEMA'),
    clickhouseUrl: url(env, 'CLICKHOUSE_URL', ['http:', 'https:']),
    clickhouseDatabase: identifier(env, 'CLICKHOUSE_DATABASE', 'burrow') as string,
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: env.REDIS_KEY_PREFIX || 'burrow:',
    adminApiKey,
    adminEmail: env.BURROW_ADMIN_EMAIL || 'admin@burrow.local',
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    trustProxy: bool(env, 'TRUST_PROXY'),
    bodyLimit: int(env, 'BODY_LIMIT', 1024 * 1024, 1024, 100 * 1024 * 1024),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0),
    authCacheTtlMs: int(env, 'AUTH_CACHE_TTL_MS', 30_000, 0, 3_600_000),
    ingestBatchRows: int(env, 'INGEST_BATCH_ROWS', 20_000, 1, 1_000_000),
    ingestBatchDelayMs: int(env, 'INGEST_BATCH_DELAY_MS', 10, 0, 10_000),
    ingestMaxPendingRows: int(env, 'INGEST_MAX_PENDING_ROWS', 500_000, 1, 100_000_000),
  };
}
