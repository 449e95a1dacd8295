import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScheduler } from '../../src/domain/batch-exports/scheduler.js';
import { type App, buildApp } from '../../src/server/app.js';
import { exportDeps } from '../../src/server/batch-exports.js';
import { drain, insertArrived, schedulerFor, testClock } from '../helpers/export-fixtures.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * An S3 destination without keys would be signed with this node's own AWS credentials (the SDK's
 * default chain), which are the operator's. Here the operator's credentials are the environment's
 * AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, and they open the real S3 peer (s3rver): without
 * BATCH_EXPORTS_S3_AMBIENT_CREDENTIALS a tenant must bring keys, on save, in tests and in runs.
 */
describe(`S3 destinations sign with their own keys unless the operator allows ambient credentials (${backend})`, () => {
  const clock = testClock('2024-04-01T00:05:00Z');
  const dir = mkdtempSync(join(tmpdir(), 'burrow-s3-keys-'));
  const saved = { ...process.env };
  let server: S3rver;
  let endpoint: string;
  let s3: S3Client;
  let strict: Harness;
  /** A second node on the same stores whose operator allows ambient credentials (one chDB per process). */
  let ambient: Harness;
  let ambientApp: App;
  const env = {
    BATCH_EXPORTS_SCHEDULER: 'false',
    BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS: 'true',
    BATCH_EXPORTS_SETTLE_MS: '0',
  };

  beforeAll(async () => {
    // The operator's credentials, as an instance role or profile would provide them.
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_EC2_METADATA_DISABLED: 'true',
    });
    server = new S3rver({
      port: 0,
      address: '127.0.0.1',
      silent: true,
      directory: dir,
      configureBuckets: [{ name: 'operator-bucket', configs: [] }],
    });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
    s3 = new S3Client({
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    strict = await startHarness(env, { now: clock.now });
    const config = {
      ...strict.config,
      captureJournal: false,
      batchExports: { ...strict.config.batchExports, s3AmbientCredentials: true },
    };
    const { meta, events, bus } = strict.stores;
    ambientApp = await buildApp({ config, meta, events, bus, now: clock.now });
    await ambientApp.ready();
    ambient = {
      ...strict,
      app: ambientApp,
      config,
      request: (method, url, opts = {}) =>
        ambientApp.inject({
          method: method as 'GET',
          url,
          headers: { authorization: `Bearer ${strict.key}` },
          ...(opts.body === undefined ? {} : { payload: opts.body as object }),
        }),
    };
  });
  afterAll(async () => {
    process.env = saved;
    s3?.destroy();
    await ambientApp?.close();
    await strict?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const base = (h: Harness) => `/api/projects/${h.boot.project_id}/batch_exports/`;
  const destination = (prefix: string, keys: Record<string, unknown> = {}) => ({
    type: 'S3',
    config: { bucket_name: 'operator-bucket', region: 'us-east-1', endpoint_url: endpoint, prefix, ...keys },
  });
  const create = (h: Harness, prefix: string, keys: Record<string, unknown> = {}) =>
    h.request('POST', base(h), {
      body: { name: prefix, interval: 'hour', destination: destination(prefix, keys) },
    });
  const objects = async (prefix: string) =>
    (await s3.send(new ListObjectsV2Command({ Bucket: 'operator-bucket', Prefix: prefix }))).Contents ?? [];
  const required =
    'aws_access_key_id and aws_secret_access_key are required: this server does not sign S3 requests with its own credentials.';

  it('refuses an export without keys, or with one of the two, naming the fields', async () => {
    for (const keys of [
      {},
      { aws_access_key_id: null, aws_secret_access_key: null },
      { aws_access_key_id: '', aws_secret_access_key: '' },
      { aws_access_key_id: 'S3RVER' },
      { aws_secret_access_key: 'S3RVER' },
    ]) {
      const res = await create(strict, 'nokeys', keys);
      expect(res.statusCode, JSON.stringify(keys)).toBe(400);
      expect(res.json()).toEqual({
        type: 'validation_error',
        code: 'invalid_input',
        detail: required,
        attr: 'destination',
      });
    }
    expect((await strict.request('GET', base(strict))).json().count).toBe(0);
    // Removing the keys of a stored export is refused too.
    const ok = await create(strict, 'withkeys', {
      aws_access_key_id: 'S3RVER',
      aws_secret_access_key: 'S3RVER',
    });
    expect(ok.statusCode).toBe(201);
    const patch = await strict.request('PATCH', `${base(strict)}${ok.json().id}/`, {
      body: { destination: { type: 'S3', config: { aws_access_key_id: null, aws_secret_access_key: null } } },
    });
    expect(patch.statusCode).toBe(400);
    await strict.request('DELETE', `${base(strict)}${ok.json().id}/`);
  });

  it('refuses a destination test without keys instead of probing with the operator credentials', async () => {
    const res = await strict.request('POST', `${base(strict)}run_test_step_new/`, {
      body: { name: 't', interval: 'hour', destination: destination('probe'), step: 1 },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toBe(required);
    expect(await objects('probe')).toEqual([]);
  });

  it('with BATCH_EXPORTS_S3_AMBIENT_CREDENTIALS, an export without keys runs on the node credentials', async () => {
    clock.set('2024-04-01T00:05:00Z');
    await insertArrived(ambient, ambient.boot.project_id, [{ at: '2024-04-01T00:10:00Z' }]);
    const res = await create(ambient, 'ambient');
    expect(res.statusCode).toBe(201);
    clock.set('2024-04-01T01:00:01Z');
    await drain(schedulerFor(ambient));
    const runs = (
      await ambient.request('GET', `${base(ambient)}${res.json().id}/runs/?after=2000-01-01T00:00:00Z`)
    ).json();
    expect(runs.results[0]).toMatchObject({ status: 'Completed', records_completed: 1 });
    expect(await objects('ambient/')).toHaveLength(1);
    await ambient.request('DELETE', `${base(ambient)}${res.json().id}/`);
  });

  it('fails, without retrying, a stored keyless export once ambient credentials are no longer allowed', async () => {
    clock.set('2024-04-01T00:05:00Z');
    const res = await create(ambient, 'legacy');
    expect(res.statusCode).toBe(201);
    // The same stores run by a node that does not allow ambient credentials (the default).
    const config = {
      ...ambient.config,
      batchExports: { ...ambient.config.batchExports, s3AmbientCredentials: false },
    };
    const silent = { error: () => {}, info: () => {} };
    clock.set('2024-04-01T01:00:01Z');
    await drain(createScheduler(exportDeps(config, ambient.deps), silent));
    const run = (
      await ambient.request('GET', `${base(ambient)}${res.json().id}/runs/?after=2000-01-01T00:00:00Z`)
    ).json().results[0];
    expect(run).toMatchObject({ status: 'Failed' });
    expect(run.latest_error).toContain('aws_access_key_id and aws_secret_access_key are required');
    expect(await objects('legacy/')).toEqual([]);
  });
});
