/**
 * One phase of bench/export.ts, run in its own process so its peak RSS is its own. Prints one JSON
 * line: {rows, seconds, startMb, peakMb}.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { copyText, createTable } from '../src/adapters/destinations/postgres-sql.js';
import { jsonLine } from '../src/adapters/destinations/s3-jsonl.js';
import { loadConfig } from '../src/config.js';
import { createScheduler } from '../src/domain/batch-exports/scheduler.js';
import { createExport } from '../src/domain/batch-exports/service.js';
import { ROW_SCHEMAS } from '../src/domain/batch-exports/sources/schemas.js';
import { exportDeps } from '../src/server/batch-exports.js';
import { openStores } from '../src/server/runtime.js';
import { insertRun } from '../src/store/meta/batch-export-runs.js';

const { values: a } = parseArgs({
  options: {
    phase: { type: 'string' },
    dir: { type: 'string' },
    hour: { type: 'string' },
    db: { type: 'string' },
    endpoint: { type: 'string' },
    team: { type: 'string' },
  },
});
const hour = Number(a.hour);
const teamId = Number(a.team);
const start = new Date(Date.UTC(2024, 4, 1, hour)).toISOString();
const end = new Date(Date.UTC(2024, 4, 1, hour + 1)).toISOString();
const config = loadConfig({
  BURROW_DATA_DIR: a.dir,
  BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS: 'true',
  LOG_LEVEL: 'silent',
});
const stores = await openStores(config);
const deps = { meta: stores.meta.db, events: stores.events, now: () => new Date() };
const pgConfig = { host: '127.0.0.1', port: 5432, user: 'postgres', password: 'x', database: a.db };
const s3Config = {
  bucket_name: 'bench',
  region: 'us-east-1',
  endpoint_url: a.endpoint,
  aws_access_key_id: 'S3RVER',
  aws_secret_access_key: 'S3RVER',
  compression: 'gzip',
};
const schema = ROW_SCHEMAS.events;

/** Burrow's path: an export and one run for the window, executed by a scheduler. */
async function burrow(destination: Record<string, unknown>): Promise<number> {
  const xdeps = exportDeps(config, deps);
  const view = await createExport(xdeps, { id: teamId }, { name: a.phase, interval: 'hour', destination });
  const now = new Date().toISOString();
  await insertRun(stores.meta.db, {
    ...{ id: randomUUID(), teamId, batchExportId: view.record.id, backfillId: null, status: 'Starting' },
    ...{ dataIntervalStart: start, dataIntervalEnd: end, recordsCompleted: 0, recordsTotalCount: null },
    ...{
      bytesExported: 0,
      latestError: null,
      cursor: null,
      attempt: 0,
      nextAttemptAt: now,
      leaseOwner: null,
    },
    ...{ leaseExpiresAt: null, createdAt: now, finishedAt: null, lastUpdatedAt: now },
  });
  // Later windows (of the schedule) are not this benchmark's business.
  const s = createScheduler(
    { ...xdeps, settings: { ...xdeps.settings, settleMs: 86_400_000 * 10_000 } },
    console,
  );
  await s.tick();
  await s.idle();
  await s.stop();
  const run = await stores.meta.db
    .selectFrom('batch_export_runs')
    .selectAll()
    .where('batch_export_id', '=', view.record.id)
    .executeTakeFirstOrThrow();
  if (run.status !== 'Completed') throw new Error(`run ended ${run.status}: ${run.latest_error}`);
  return Number(run.records_completed);
}

/** The plain path: the whole window in one query, as the destination wants it. */
const plainRows = () =>
  stores.events.query<Record<string, string | number | boolean | null>>(
    `SELECT toString(uuid) AS uuid, event, properties, distinct_id, team_id,
       formatDateTime(timestamp, '%Y-%m-%dT%H:%i:%S.%fZ', 'UTC') AS timestamp,
       formatDateTime(created_at, '%Y-%m-%dT%H:%i:%S.%fZ', 'UTC') AS created_at, elements_chain,
       NULL AS person_id, NULL AS person_properties, \`$session_id\` AS session_id,
       formatDateTime(inserted_at, '%Y-%m-%dT%H:%i:%S.%fZ', 'UTC') AS _inserted_at
     FROM ${stores.events.table('events')} WHERE team_id = {team:Int64}
       AND inserted_at >= {s:DateTime64(6, 'UTC')} AND inserted_at < {e:DateTime64(6, 'UTC')}`,
    {
      params: {
        team: teamId,
        s: start.replace('T', ' ').replace('Z', ''),
        e: end.replace('T', ' ').replace('Z', ''),
      },
    },
  );

async function plainPostgres(): Promise<number> {
  const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:5432/${a.db}` });
  await client.connect();
  await client.query(createTable(`plain_${hour}`, schema));
  const rows = await plainRows();
  const stream = client.query(copyFrom(`COPY plain_${hour} FROM STDIN`));
  await new Promise<void>((resolve, reject) =>
    stream.on('finish', resolve).on('error', reject).end(copyText(rows, schema)),
  );
  await client.end();
  return rows.length;
}

async function plainS3(): Promise<number> {
  const s3 = new S3Client({
    region: 'us-east-1',
    endpoint: a.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const rows = await plainRows();
  const line = jsonLine(schema);
  const body = gzipSync(rows.map(line).join(''));
  await s3.send(new PutObjectCommand({ Bucket: 'bench', Key: `plain-${hour}.jsonl.gz`, Body: body }));
  s3.destroy();
  return rows.length;
}

const phases: Record<string, () => Promise<number>> = {
  'burrow-pg': () => burrow({ type: 'Postgres', config: { ...pgConfig, table_name: `burrow_${hour}` } }),
  'burrow-s3': () => burrow({ type: 'S3', config: { ...s3Config, prefix: `burrow-${hour}` } }),
  'plain-pg': plainPostgres,
  'plain-s3': plainS3,
};

const startMb = process.memoryUsage().rss / 1e6;
let peak = startMb;
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss / 1e6)), 20);
const t0 = performance.now();
const rows = await phases[a.phase!]!();
const seconds = (performance.now() - t0) / 1000;
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage().rss / 1e6);
await stores.close();
console.log(JSON.stringify({ rows, seconds, startMb, peakMb: peak }));
