import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drain, insertArrived, schedulerFor, testClock } from '../helpers/export-fixtures.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/** Exports into a real S3-compatible server (s3rver) on loopback, read back and decoded. */
describe(`batch exports to S3 (${backend})`, () => {
  const clock = testClock('2024-04-01T00:05:00Z');
  const dir = mkdtempSync(join(tmpdir(), 'burrow-s3-'));
  let h: Harness;
  let server: S3rver;
  let endpoint: string;
  let s3: S3Client;
  let base: string;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

  beforeAll(async () => {
    server = new S3rver({
      port: 0,
      address: '127.0.0.1',
      silent: true,
      directory: dir,
      configureBuckets: [{ name: 'exports', configs: [] }],
    });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
    s3 = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials });
    h = await startHarness(
      {
        BATCH_EXPORTS_SCHEDULER: 'false',
        BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS: 'true',
        BATCH_EXPORTS_SETTLE_MS: '0',
        BATCH_EXPORTS_PAGE_ROWS: '50',
      },
      { now: clock.now },
    );
    base = `/api/projects/${h.boot.project_id}/batch_exports/`;
    await insertArrived(
      h,
      h.boot.project_id,
      Array.from({ length: 120 }, (_, i) => ({
        at: `2024-04-01T00:${String(i % 60).padStart(2, '0')}:${String(i % 7).padStart(2, '0')}Z`,
      })),
    );
  });
  afterAll(async () => {
    s3?.destroy();
    await h?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const config = (extra: Record<string, unknown>) => ({
    bucket_name: 'exports',
    region: 'us-east-1',
    endpoint_url: endpoint,
    aws_access_key_id: 'S3RVER',
    aws_secret_access_key: 'S3RVER',
    ...extra,
  });

  async function objects(prefix: string) {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'exports', Prefix: prefix }));
    return Promise.all(
      (listed.Contents ?? []).map(async (o) => {
        const got = await s3.send(new GetObjectCommand({ Bucket: 'exports', Key: o.Key }));
        return { key: o.Key!, body: Buffer.from(await got.Body!.transformToByteArray()) };
      }),
    );
  }

  async function exportTo(prefix: string, extra: Record<string, unknown>) {
    clock.set('2024-04-01T00:05:00Z');
    const res = await h.request('POST', base, {
      body: {
        name: prefix,
        destination: { type: 'S3', config: config({ prefix, ...extra }) },
        interval: 'hour',
      },
    });
    expect(res.statusCode).toBe(201);
    expect(res.body).not.toContain('S3RVER');
    clock.set('2024-04-01T01:00:01Z');
    await drain(schedulerFor(h));
    const run = (await h.request('GET', `${base}${res.json().id}/runs/?after=2000-01-01T00:00:00Z`)).json()
      .results[0];
    await h.request('DELETE', `${base}${res.json().id}/`);
    return run;
  }

  it.each([
    ['gzip', (b: Buffer) => gunzipSync(b), '.jsonl.gz'],
    ['brotli', (b: Buffer) => brotliDecompressSync(b), '.jsonl.br'],
    [null, (b: Buffer) => b, '.jsonl'],
  ])('writes JSON Lines with %s compression', async (compression, decode, ext) => {
    const prefix = `jsonl-${compression}`;
    const run = await exportTo(prefix, { compression });
    expect(run).toMatchObject({ status: 'Completed', records_completed: 120 });
    const [file] = await objects(prefix);
    expect(file!.key).toBe(`${prefix}/2024-04-01T00:00:00.000Z-2024-04-01T01:00:00.000Z${ext}`);
    expect(run.bytes_exported).toBe(file!.body.length);
    const lines = decode(file!.body)
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(120);
    expect(lines[0]).toMatchObject({
      event: 'exported',
      team_id: h.boot.project_id,
      properties: { text: 'tab\there "quoted" \\ back' },
    });
    expect(Object.keys(lines[0])).toEqual([
      'uuid',
      'event',
      'properties',
      'distinct_id',
      'team_id',
      'timestamp',
      'created_at',
      'elements_chain',
      'person_id',
      'person_properties',
      'session_id',
      '_inserted_at',
    ]);
  });

  it.each(['zstd', 'snappy', 'gzip', 'brotli', 'lz4'])(
    'writes Parquet with %s compression',
    async (compression) => {
      const prefix = `parquet-${compression}`;
      const run = await exportTo(prefix, { file_format: 'Parquet', compression });
      expect(run).toMatchObject({ status: 'Completed', records_completed: 120 });
      const [file] = await objects(prefix);
      expect(file!.key).toMatch(/\.parquet\.\w+$/);
      const table = tableFromIPC(readParquet(file!.body).intoIPCStream());
      expect(table.numRows).toBe(120);
      expect(table.getChild('event')!.get(0)).toBe('exported');
      expect(Number(table.getChild('team_id')!.get(0))).toBe(h.boot.project_id);
    },
  );

  it('splits files at max_file_size_mb, and a retried run rewrites the same objects', async () => {
    const big = () => randomBytes(12_500).toString('hex');
    await insertArrived(
      h,
      h.boot.project_id,
      Array.from({ length: 150 }, (_, i) => ({
        at: `2024-04-01T02:00:${String(i % 60).padStart(2, '0')}Z`,
        properties: { big: big() },
      })),
    );
    clock.set('2024-04-01T02:05:00Z');
    const res = await h.request('POST', base, {
      body: {
        name: 'split',
        destination: { type: 'S3', config: config({ prefix: 'split', max_file_size_mb: 1 }) },
        interval: 'hour',
      },
    });
    const id = res.json().id;
    clock.set('2024-04-01T03:00:01Z');
    const s = schedulerFor(h);
    await drain(s);
    const first = await objects('split');
    expect(
      first.map((o) => o.key.replace(/^split\/2024-04-01T02:00:00.000Z-2024-04-01T03:00:00.000Z/, '')),
    ).toEqual(['-1.jsonl', '-2.jsonl', '.jsonl']);
    const lines = first.flatMap((o) => o.body.toString('utf8').trimEnd().split('\n'));
    expect(lines).toHaveLength(150);
    const [run] = (await h.request('GET', `${base}${id}/runs/?after=2000-01-01T00:00:00Z`)).json().results;
    await h.request('POST', `${base}${id}/runs/${run.id}/retry/`);
    await drain(s, 2);
    const again = await objects('split');
    expect(again.map((o) => o.key)).toEqual(first.map((o) => o.key));
    await h.request('DELETE', `${base}${id}/`);
  });

  it('validates S3 settings with PostHog messages', async () => {
    const post = (extra: Record<string, unknown>) =>
      h.request('POST', base, {
        body: {
          name: 'x',
          destination: { type: 'S3', config: config({ prefix: 'p', ...extra }) },
          interval: 'hour',
        },
      });
    expect((await post({ file_format: 'CSV' })).json().detail).toBe(
      "File format CSV is not supported. Supported file formats are ['Parquet', 'JSONLines']",
    );
    expect((await post({ compression: 'zstd' })).json().detail).toBe(
      "Compression zstd is not supported for file format JSONLines. Supported compressions are ['gzip', 'brotli']",
    );
    expect((await post({ bucket_name: '' })).json().detail).toBe(
      "The following inputs are empty: ['bucket_name']",
    );
    const blank = await post({ endpoint_url: '' });
    expect(blank.statusCode).toBe(201);
    expect(blank.json().destination.config.endpoint_url).toBeNull();
    await h.request('DELETE', `${base}${blank.json().id}/`);
  });

  it('runs the destination test steps against the real server', async () => {
    const steps = (await h.request('GET', `${base}test/?destination=S3`)).json();
    expect(steps.steps.map((s: { name: string }) => s.name)).toEqual([
      'Check S3 bucket exists',
      'Write a test object to S3',
    ]);
    expect(steps.steps[0].result).toBeNull();
    const body = (step: number, extra: Record<string, unknown> = {}) => ({
      name: 't',
      interval: 'hour',
      destination: { type: 'S3', config: config({ prefix: 'probe', ...extra }) },
      step,
    });
    for (const step of [0, 1]) {
      const res = await h.request('POST', `${base}run_test_step_new/`, { body: body(step) });
      expect(res.json().result).toEqual({ status: 'Passed', message: null });
    }
    expect(await objects('probe')).toEqual([]);
    const missing = await h.request('POST', `${base}run_test_step_new/`, {
      body: body(0, { bucket_name: 'nope' }),
    });
    expect(missing.json()).toEqual({
      name: 'Check S3 bucket exists',
      description: expect.any(String),
      result: {
        status: 'Failed',
        message: "Bucket 'nope' does not exist or we don't have permissions to use it",
      },
    });
    const org = `/api/organizations/${h.boot.organization_id}/batch_exports/`;
    expect((await h.request('GET', `${org}test/?destination=Snowflake`)).statusCode).toBe(404);
    expect((await h.request('GET', `${org}test/`)).json()).toEqual({ steps: [] });

    // run_test_step on a stored export: its secrets come from storage.
    clock.set('2024-04-01T00:05:00Z');
    const created = (
      await h.request('POST', base, {
        body: {
          name: 'stored',
          interval: 'hour',
          destination: { type: 'S3', config: config({ prefix: 'stored' }) },
        },
      })
    ).json();
    const stored = await h.request('POST', `${org}${created.id}/run_test_step/`, {
      body: { destination: { type: 'S3', config: { bucket_name: 'exports' } }, step: 1 },
    });
    expect(stored.json().result).toEqual({ status: 'Passed', message: null });
  });
});
