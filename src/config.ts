import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { checkPersonKeys } from './store/events/columns.js';

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
  /**
   * Which peers' X-Forwarded-* headers are believed (Fastify's trustProxy): false, a number of
   * proxy hops in front of Burrow, or the proxies' addresses/CIDRs. Never plain `true` (every
   * peer), which takes the client-chosen leftmost X-Forwarded-For entry as the client address.
   */
  trustProxy: false | number | string[];
  bodyLimit: number;
  shutdownTimeoutMs: number;
  authCacheTtlMs: number;
  /** How long `/flags` may reuse a person's properties read from the store (0: never). */
  flagsPersonCacheMs: number;
  ingestBatchRows: number;
  ingestBatchDelayMs: number;
  /** While other capture requests are in flight, how long a person transaction waits for more (docs/capture.md). */
  capturePersonGroupDelayMs: number;
  ingestMaxPendingRows: number;
  /** Capture inserts that may run at once (each on its own engine session). */
  ingestWriters: number;
  /**
   * Capture answers once the rows are fsync'd to a local journal (docs/capture.md) and a
   * background writer inserts them; off: it answers once the engine insert is done.
   */
  captureJournal: boolean;
  /** `GEOIP_DATABASE`: MMDB files for `$geoip_*` at capture; `off`: none; unset: the shipped DB-IP files. */
  geoipDatabase: string | undefined;
  /** Where the journal's segments and checkpoint live (default `<dataDir>/capture-journal`). */
  captureJournalDir: string;
  /** The longest a query waits for this node's acknowledged events to be inserted (then a 503). */
  captureJournalWaitMs: number;
  /** How long the journal's oldest row may wait for more before the writer inserts. */
  captureJournalInsertDelayMs: number;
  /** The same while no query has read on this node for 10 s (never below the one above). */
  captureJournalIdleInsertDelayMs: number;
  /** Per capture request (docs/limits.md): bytes once decompressed, events, nesting depth. */
  captureMaxDecodedBytes: number;
  captureMaxEvents: number;
  captureMaxJsonDepth: number;
  /** Largest analytics event, and largest recording (`/s/`) event, as JSON bytes. */
  captureMaxEventBytes: number;
  captureMaxRecordingEventBytes: number;
  /** Capture requests decoded at once on this node (the others wait). */
  captureConcurrency: number;
  /** Query engine work running at once on this node. */
  queryConcurrency: number;
  /** Queries one project may have queued or running on this node (more is a 429). */
  queryTeamConcurrency: number;
  /** Queries one project may have running at once on this node (below queryConcurrency). */
  queryTeamShare: number;
  /** Engine statements batch exports may run at once on this node (their own lane). */
  exportQueryConcurrency: number;
  /** Engine memory for all statements of this node together, in bytes. */
  engineMemoryLimit: number;
  /** Engine threads one query or export statement may use (0: the engine's default). */
  queryMaxThreads: number;
  /** Bytes one query answer may have (0: no bound); larger answers are refused with a 400. */
  queryMaxResultBytes: number;
  /** Person properties given their own column on events at startup (`pmat_<key>`). */
  materializedPersonProperties: string[];
  /** In-memory query cache budget, in bytes (also the budget of in-memory query statuses). */
  queryCacheMaxBytes: number;
  playlistCountIntervalMs: number;
  playlistCountMaxAgeMs: number;
  siteUrl: string | undefined;
  smtpUrl: string | undefined;
  emailFrom: string;
  dnsServers: string[] | undefined;
  dnsTimeoutMs: number;
  /** Failed logins allowed per client address, and per email from one address, in a window. */
  loginMaxAttempts: number;
  loginWindowSeconds: number;
  /** Failed logins allowed per email from all addresses together, in its own (longer) window. */
  loginEmailMaxAttempts: number;
  loginEmailWindowSeconds: number;
  /** Encrypts stored secrets (batch export credentials); unset: a key file in the data directory. */
  secretKey: string | undefined;
  /**
   * PostHog's object storage settings (`OBJECT_STORAGE_*`): when a bucket is named, symbol sets
   * live there (uploaded by posthog-cli straight to a presigned POST); unset: the data directory.
   */
  objectStorage: ObjectStorage | undefined;
  /** An OpenAI-compatible chat completions endpoint for draft_sql; unset: templates only. */
  llm: { url: string; apiKey: string; model: string; timeoutMs: number } | undefined;
  /** draft_sql requests allowed per user (0: unlimited). */
  draftSqlBurstPerMinute: number;
  draftSqlPerDay: number;
  batchExports: {
    scheduler: boolean;
    allowPrivateNetworks: boolean;
    /** S3 destinations without keys sign with this node's AWS credentials (off: keys required). */
    s3AmbientCredentials: boolean;
    pageRows: number;
    settleMs: number;
    leaseMs: number;
    maxAttempts: number;
    retryBaseMs: number;
    autoPauseAfter: number;
    concurrency: number;
    pollMs: number;
  };
  /** Realtime destinations' delivery (docs/destinations.md). */
  destinations: {
    /** Whether this node runs delivery workers (every node may). */
    workers: boolean;
    pollMs: number;
    leaseMs: number;
    timeoutMs: number;
    perFunction: number;
    total: number;
    backoffMs: number;
    backoffMaxMs: number;
    /** A destination whose every try failed for this long disables itself. */
    disableAfterMs: number;
    /** Deliveries started per second on a node while capture needs its event loop. */
    busyRate: number;
    /** Worker threads Liquid inputs render in, and how many renders may wait for one. */
    liquidWorkers: number;
    liquidQueue: number;
  };
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

/** Bytes in a mebibyte, for the size settings. */
const MiB = 1024 * 1024;

const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function proxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * `TRUST_PROXY`: off (default), a hop count, or the proxies' addresses. The client address is then
 * the X-Forwarded-For entry that many hops from the right, or the rightmost one not from a listed
 * proxy: each proxy appends what it saw, so entries further left are whatever the client sent.
 * `true` means one hop (one reverse proxy in front), what an operator setting it expects; the
 * leftmost entry (Fastify's `true`) is never used, as rotating it bypassed per-address limits.
 */
function trustProxy(env: Env): Config['trustProxy'] {
  const raw = (env.TRUST_PROXY ?? '').trim().toLowerCase();
  if (['', '0', 'false', 'no', 'off'].includes(raw)) return false;
  if (['true', 'yes', 'on'].includes(raw)) return 1;
  if (/^\d{1,2}$/.test(raw)) {
    const hops = Number(raw);
    if (hops <= 10) return hops;
  }
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length > 0 && entries.length <= 100 && entries.every(proxyAddress)) return entries;
  throw new ConfigError(
    `TRUST_PROXY must be false, true (one proxy), a number of proxy hops (1-10) or a comma-separated list of proxy addresses/CIDRs (or loopback, linklocal, uniquelocal), got "${env.TRUST_PROXY}"`,
  );
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

function identifier(env: Env, name: string, fallback?: string): string | undefined {
  const raw = env[name] || fallback;
  if (raw !== undefined && !IDENTIFIER.test(raw)) {
    throw new ConfigError(`${name} must be a plain identifier (letters, digits, underscore)`);
  }
  return raw;
}

/** `DNS_SERVERS`: comma-separated IPs, each optionally with a port (`1.2.3.4:53`, `[::1]:53`). */
function dnsServers(env: Env): string[] | undefined {
  const raw = env.DNS_SERVERS?.trim();
  if (!raw) return undefined;
  return raw.split(',').map((entry) => {
    const server = entry.trim();
    const match = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(server) ?? /^([^:]+)(?::(\d{1,5}))?$/.exec(server);
    const host = match?.[1] ?? server;
    const port = match?.[2] === undefined ? 53 : Number(match[2]);
    if (!isIP(host) || port < 1 || port > 65535) {
      throw new ConfigError(`DNS_SERVERS must list IP addresses (optionally with :port), got "${server}"`);
    }
    return server;
  });
}

function emailFrom(env: Env): string {
  const raw = env.EMAIL_FROM?.trim() || 'Burrow <burrow@localhost>';
  if (!/^[^@\s<>]+@[^@\s<>]+$|<[^@\s<>]+@[^@\s<>]+>$/.test(raw)) {
    throw new ConfigError(`EMAIL_FROM must be an email address ("Name <a@b.c>" or "a@b.c"), got "${raw}"`);
  }
  return raw;
}

function secretKey(env: Env): string | undefined {
  const raw = env.BURROW_SECRET_KEY || undefined;
  if (raw !== undefined && raw.length < 32)
    throw new ConfigError('BURROW_SECRET_KEY must be at least 32 characters');
  return raw;
}

/** `LLM_API_URL` and `LLM_API_KEY` come together or not at all. */
export interface ObjectStorage {
  bucket: string;
  region: string;
  /** An S3-compatible store (path-style addressing); unset: AWS S3 of `region`. */
  endpoint: string | undefined;
  accessKeyId: string;
  secretAccessKey: string;
  /** The key prefix of symbol sets (PostHog's OBJECT_STORAGE_ERROR_TRACKING_SOURCE_MAPS_FOLDER). */
  symbolSetsFolder: string;
}

function objectStorage(env: Env): ObjectStorage | undefined {
  const bucket = env.OBJECT_STORAGE_BUCKET?.trim();
  if (!bucket) return undefined;
  const accessKeyId = env.OBJECT_STORAGE_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.OBJECT_STORAGE_SECRET_ACCESS_KEY?.trim();
  // Presigned POSTs are signed with these keys: the SDK's ambient chain cannot sign a policy here.
  if (!accessKeyId || !secretAccessKey) {
    throw new ConfigError(
      'OBJECT_STORAGE_BUCKET needs OBJECT_STORAGE_ACCESS_KEY_ID and OBJECT_STORAGE_SECRET_ACCESS_KEY',
    );
  }
  return {
    bucket,
    region: env.OBJECT_STORAGE_REGION?.trim() || 'us-east-1',
    endpoint: url(env, 'OBJECT_STORAGE_ENDPOINT', ['http:', 'https:'])?.replace(/\/+$/, ''),
    accessKeyId,
    secretAccessKey,
    symbolSetsFolder:
      env.OBJECT_STORAGE_ERROR_TRACKING_SOURCE_MAPS_FOLDER?.trim().replace(/^\/+|\/+$/g, '') || 'symbolsets',
  };
}

function llm(env: Env): Config['llm'] {
  const endpoint = url(env, 'LLM_API_URL', ['http:', 'https:']);
  const apiKey = env.LLM_API_KEY || undefined;
  if (!endpoint && !apiKey) return undefined;
  if (!endpoint || !apiKey) throw new ConfigError('LLM_API_URL and LLM_API_KEY must be set together');
  return {
    url: endpoint,
    apiKey,
    model: env.LLM_MODEL?.trim() || 'gpt-4o-mini',
    timeoutMs: int(env, 'LLM_TIMEOUT_MS', 20_000, 100, 600_000),
  };
}

/**
 * `MATERIALIZED_PERSON_PROPERTIES`: comma-separated person property keys (unset: `email`, which
 * the usual internal-users filter reads; empty: none).
 */
function materializedPersonProperties(env: Env): string[] {
  const raw = env.MATERIALIZED_PERSON_PROPERTIES;
  if (raw === undefined) return ['email'];
  const keys = raw
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  try {
    return checkPersonKeys(keys);
  } catch (error) {
    throw new ConfigError(`MATERIALIZED_PERSON_PROPERTIES: ${(error as Error).message}`);
  }
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
    trustProxy: trustProxy(env),
    bodyLimit: int(env, 'BODY_LIMIT', 1024 * 1024, 1024, 100 * 1024 * 1024),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0),
    authCacheTtlMs: int(env, 'AUTH_CACHE_TTL_MS', 30_000, 0, 3_600_000),
    flagsPersonCacheMs: int(env, 'FLAGS_PERSON_CACHE_MS', 1_000, 0, 60_000),
    ingestBatchRows: int(env, 'INGEST_BATCH_ROWS', 20_000, 1, 1_000_000),
    ingestBatchDelayMs: int(env, 'INGEST_BATCH_DELAY_MS', 10, 0, 10_000),
    capturePersonGroupDelayMs: int(env, 'CAPTURE_PERSON_GROUP_DELAY_MS', 10, 0, 1_000),
    ingestMaxPendingRows: int(env, 'INGEST_MAX_PENDING_ROWS', 500_000, 1, 100_000_000),
    ingestWriters: int(env, 'INGEST_WRITERS', 1, 1, 16),
    geoipDatabase: env.GEOIP_DATABASE || undefined,
    captureJournal:
      env.CAPTURE_JOURNAL === undefined || env.CAPTURE_JOURNAL === '' ? true : bool(env, 'CAPTURE_JOURNAL'),
    captureJournalDir: resolve(
      env.CAPTURE_JOURNAL_DIR || join(resolve(env.BURROW_DATA_DIR || '.burrow'), 'capture-journal'),
    ),
    captureJournalWaitMs: int(env, 'CAPTURE_JOURNAL_WAIT_MS', 30_000, 1, 3_600_000),
    // No client waits for it (the journal has answered; a reader on this node starts the insert at
    // once), so it can be long enough for large inserts: an insert into events costs the engine
    // ~25 ms of CPU whatever its size (docs/benchmarks-history.md, "Issue 22, session 7"). Longer (500) gained
    // little more and made this node's readers wait for larger inserts under capture load.
    captureJournalInsertDelayMs: int(env, 'CAPTURE_JOURNAL_INSERT_DELAY_MS', 200, 0, 60_000),
    // While nobody reads on this node, nobody waits for the inserts: at 16 requests in flight on
    // this 2-core machine inserts of ~4k rows (200 ms) cost the engine ~35 µs a row, ~20k rows
    // ~22, and capture ran 15% faster with 1000 (docs/benchmarks-history.md, "Issue 22, session 8").
    captureJournalIdleInsertDelayMs: int(env, 'CAPTURE_JOURNAL_IDLE_INSERT_DELAY_MS', 1000, 0, 60_000),
    captureMaxDecodedBytes: int(env, 'CAPTURE_MAX_DECODED_BYTES', 25 * MiB, 64 * 1024, 1024 * MiB),
    captureMaxEvents: int(env, 'CAPTURE_MAX_EVENTS', 10_000, 1, 1_000_000),
    captureMaxJsonDepth: int(env, 'CAPTURE_MAX_JSON_DEPTH', 128, 8, 1000),
    captureMaxEventBytes: int(env, 'CAPTURE_MAX_EVENT_BYTES', MiB, 1024, 256 * MiB),
    captureMaxRecordingEventBytes: int(env, 'CAPTURE_MAX_RECORDING_EVENT_BYTES', 8 * MiB, 1024, 256 * MiB),
    captureConcurrency: int(env, 'CAPTURE_CONCURRENCY', 2, 1, 64),
    queryConcurrency: int(env, 'QUERY_CONCURRENCY', 4, 1, 1024),
    queryTeamConcurrency: int(env, 'QUERY_TEAM_CONCURRENCY', 8, 1, 100_000),
    queryTeamShare: int(env, 'QUERY_TEAM_SHARE', 2, 1, 1024),
    exportQueryConcurrency: int(env, 'BATCH_EXPORTS_QUERY_CONCURRENCY', 1, 1, 64),
    engineMemoryLimit: int(env, 'ENGINE_MEMORY_LIMIT', 12 * 2 ** 30, 256 * 2 ** 20, 2 ** 50),
    // Half the machine's cores: one project's queries (QUERY_TEAM_SHARE at once) leave capture room.
    queryMaxThreads: int(
      env,
      'QUERY_MAX_THREADS',
      Math.max(1, Math.floor(availableParallelism() / 2)),
      0,
      1024,
    ),
    queryMaxResultBytes: int(env, 'QUERY_MAX_RESULT_BYTES', 16 * 2 ** 20, 0, 2 ** 30),
    materializedPersonProperties: materializedPersonProperties(env),
    queryCacheMaxBytes: int(env, 'QUERY_CACHE_MAX_BYTES', 128 * 2 ** 20, 2 ** 20, 64 * 2 ** 30),
    playlistCountIntervalMs: int(env, 'PLAYLIST_COUNT_INTERVAL_MS', 60_000, 0, 86_400_000),
    playlistCountMaxAgeMs: int(env, 'PLAYLIST_COUNT_MAX_AGE_MS', 1_800_000, 0, 604_800_000),
    siteUrl: url(env, 'SITE_URL', ['http:', 'https:'])?.replace(/\/+$/, ''),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    emailFrom: emailFrom(env),
    dnsServers: dnsServers(env),
    dnsTimeoutMs: int(env, 'DNS_TIMEOUT_MS', 3000, 1, 60_000),
    loginMaxAttempts: int(env, 'LOGIN_MAX_ATTEMPTS', 10, 1, 1_000_000),
    loginWindowSeconds: int(env, 'LOGIN_WINDOW_SECONDS', 900, 1, 86_400),
    loginEmailMaxAttempts: int(env, 'LOGIN_EMAIL_MAX_ATTEMPTS', 100, 1, 1_000_000),
    loginEmailWindowSeconds: int(env, 'LOGIN_EMAIL_WINDOW_SECONDS', 3600, 1, 86_400),
    secretKey: secretKey(env),
    objectStorage: objectStorage(env),
    llm: llm(env),
    draftSqlBurstPerMinute: int(env, 'DRAFT_SQL_BURST_PER_MINUTE', 10, 0, 1_000_000),
    draftSqlPerDay: int(env, 'DRAFT_SQL_PER_DAY', 100, 0, 100_000_000),
    batchExports: {
      scheduler: env.BATCH_EXPORTS_SCHEDULER ? bool(env, 'BATCH_EXPORTS_SCHEDULER') : true,
      allowPrivateNetworks: bool(env, 'BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS'),
      s3AmbientCredentials: bool(env, 'BATCH_EXPORTS_S3_AMBIENT_CREDENTIALS'),
      pageRows: int(env, 'BATCH_EXPORTS_PAGE_ROWS', 20_000, 1, 1_000_000),
      settleMs: int(env, 'BATCH_EXPORTS_SETTLE_MS', 60_000, 0, 86_400_000),
      leaseMs: int(env, 'BATCH_EXPORTS_LEASE_MS', 60_000, 100, 86_400_000),
      maxAttempts: int(env, 'BATCH_EXPORTS_MAX_ATTEMPTS', 5, 1, 100),
      retryBaseMs: int(env, 'BATCH_EXPORTS_RETRY_BASE_MS', 60_000, 0, 86_400_000),
      autoPauseAfter: int(env, 'BATCH_EXPORTS_AUTO_PAUSE_AFTER', 3, 1, 1000),
      concurrency: int(env, 'BATCH_EXPORTS_CONCURRENCY', 2, 1, 64),
      pollMs: int(env, 'BATCH_EXPORTS_POLL_MS', 5_000, 10, 3_600_000),
    },
    destinations: {
      workers: env.DESTINATIONS_WORKERS ? bool(env, 'DESTINATIONS_WORKERS') : true,
      pollMs: int(env, 'DESTINATIONS_POLL_MS', 500, 10, 60_000),
      leaseMs: int(env, 'DESTINATIONS_LEASE_MS', 60_000, 1000, 3_600_000),
      timeoutMs: int(env, 'DESTINATIONS_TIMEOUT_MS', 10_000, 100, 60_000),
      perFunction: int(env, 'DESTINATIONS_CONCURRENCY_PER_FUNCTION', 10, 1, 1000),
      total: int(env, 'DESTINATIONS_CONCURRENCY', 50, 1, 10_000),
      backoffMs: int(env, 'DESTINATIONS_RETRY_BASE_MS', 1000, 0, 3_600_000),
      backoffMaxMs: int(env, 'DESTINATIONS_RETRY_MAX_MS', 30_000, 0, 3_600_000),
      disableAfterMs: int(env, 'DESTINATIONS_DISABLE_AFTER_MS', 3 * 3_600_000, 1000, 30 * 86_400_000),
      busyRate: int(env, 'DESTINATIONS_BUSY_RATE', 100, 1, 1_000_000),
      liquidWorkers: int(env, 'DESTINATIONS_LIQUID_WORKERS', 2, 1, 64),
      liquidQueue: int(env, 'DESTINATIONS_LIQUID_QUEUE', 1000, 1, 100_000),
    },
  };
}
