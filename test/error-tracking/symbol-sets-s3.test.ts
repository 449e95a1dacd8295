import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { transform } from 'esbuild';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSymbolData } from '../../src/domain/error-tracking/symbol-data.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * Symbol sets in S3 (OBJECT_STORAGE_*): bulk_start_upload answers presigned POSTs at the bucket,
 * the upload goes there as posthog-cli sends it (a multipart form of the answered fields, then
 * `file`), bulk_finish_upload finds it there, and download, symbolication and delete read and
 * remove the object. The S3 is s3rver on loopback, as batch exports' tests use.
 */
describe(`symbol sets in S3 (${backend})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'burrow-symbols-s3-'));
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  let server: S3rver;
  let endpoint: string;
  let s3: S3Client;
  let h: Harness;
  let base: string;
  let api: string;
  const SOURCE = [
    'export function checkout(cart) {',
    "  if (!cart.items.length) throw new RangeError('empty cart');",
    '  return cart.items.length;',
    '}',
    'globalThis.run = () => checkout({ items: [] });',
  ].join('\n');

  type Target = { symbol_set_id: string; presigned_url: { url: string; fields: Record<string, string> } };
  const auth = () => ({ authorization: `Bearer ${h.key}`, 'content-type': 'application/json' });
  const post = (path: string, body: unknown) =>
    fetch(`${api}${path}`, { method: 'POST', headers: auth(), body: JSON.stringify(body) });
  /** As posthog-cli's upload: the presigned fields in order, then the bytes as `file`. */
  async function upload(target: Target['presigned_url'], data: Buffer) {
    const form = new FormData();
    for (const [k, v] of Object.entries(target.fields)) form.append(k, v);
    form.append('file', new Blob([data]), 'file');
    return fetch(target.url, { method: 'POST', body: form });
  }

  beforeAll(async () => {
    server = new S3rver({
      port: 0,
      address: '127.0.0.1',
      silent: true,
      directory: dir,
      configureBuckets: [{ name: 'burrow-objects', configs: [] }],
    });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
    s3 = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials });
    h = await startHarness({
      INGEST_BATCH_DELAY_MS: '2',
      OBJECT_STORAGE_BUCKET: 'burrow-objects',
      OBJECT_STORAGE_ENDPOINT: endpoint,
      OBJECT_STORAGE_REGION: 'us-east-1',
      OBJECT_STORAGE_ACCESS_KEY_ID: credentials.accessKeyId,
      OBJECT_STORAGE_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    api = `${base}/api/projects/${h.boot.project_id}/`;
  });
  afterAll(async () => {
    s3?.destroy();
    await h?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a presigned POST at the bucket, signed for that one key (SigV4 POST policy)', async () => {
    const start = await post('error_tracking/symbol_sets/bulk_start_upload', {
      symbol_sets: [{ chunk_id: 'policy-1', release_id: null, content_hash: 'p' }],
      force: false,
      skip_on_conflict: false,
    });
    expect(start.status).toBe(200);
    const target = ((await start.json()) as { id_map: Record<string, Target> }).id_map['policy-1'] as Target;
    const { url, fields } = target.presigned_url;
    expect(url).toBe(`${endpoint}/burrow-objects`);
    const key = `symbolsets/${h.boot.project_id}/${target.symbol_set_id}`;
    expect(fields.key).toBe(key);
    const policy = JSON.parse(Buffer.from(fields.policy as string, 'base64').toString('utf8'));
    expect(policy.conditions).toEqual(
      expect.arrayContaining([
        { bucket: 'burrow-objects' },
        { key },
        ['content-length-range', 0, 100 * 1024 * 1024],
        { 'x-amz-credential': fields['x-amz-credential'] },
      ]),
    );
    expect(Date.parse(policy.expiration)).toBeGreaterThan(Date.now());
    // AWS's documented derivation: the signing key from the secret, day, region and service.
    const day = (fields['x-amz-date'] as string).slice(0, 8);
    expect(fields['x-amz-credential']).toBe(`S3RVER/${day}/us-east-1/s3/aws4_request`);
    const k = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
    const signing = k(k(k(k('AWS4S3RVER', day), 'us-east-1'), 's3'), 'aws4_request');
    expect(fields['x-amz-signature']).toBe(
      createHmac('sha256', signing)
        .update(fields.policy as string)
        .digest('hex'),
    );
    // Not uploaded yet: finish says so.
    const finish = await post('error_tracking/symbol_sets/bulk_finish_upload', {
      content_hashes: { [target.symbol_set_id]: 'p' },
    });
    expect(finish.status).toBe(400);
    expect(await finish.json()).toMatchObject({ code: 'not_uploaded' });
  });

  it('uploads to S3, finishes, downloads, resolves a minified frame from it, and deletes the object', async () => {
    const out = await transform(SOURCE, {
      minify: true,
      sourcemap: 'external',
      sourcefile: 'src/cart.ts',
      format: 'iife',
      sourcesContent: true,
    });
    const data = writeSymbolData(out.code, out.map);
    const hash = createHash('sha512').update(data).digest('hex');
    const start = await post('error_tracking/symbol_sets/bulk_start_upload', {
      symbol_sets: [{ chunk_id: 'cart-1', release_id: null, content_hash: hash }],
      force: false,
      skip_on_conflict: false,
    });
    const target = ((await start.json()) as { id_map: Record<string, Target> }).id_map['cart-1'] as Target;
    const up = await upload(target.presigned_url, data);
    expect(up.status, await up.clone().text()).toBe(204);
    const key = target.presigned_url.fields.key as string;
    const stored = await s3.send(new GetObjectCommand({ Bucket: 'burrow-objects', Key: key }));
    expect(
      Buffer.from(
        await (stored.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
      ).equals(data),
    ).toBe(true);

    const finish = await post('error_tracking/symbol_sets/bulk_finish_upload', {
      content_hashes: { [target.symbol_set_id]: hash },
    });
    expect(finish.status, await finish.clone().text()).toBe(201);
    const again = await post('error_tracking/symbol_sets/bulk_start_upload', {
      symbol_sets: [{ chunk_id: 'cart-1', content_hash: hash }],
    });
    expect(((await again.json()) as { id_map: object }).id_map).toEqual({});
    const dl = (await (
      await fetch(`${api}error_tracking/symbol_sets/${target.symbol_set_id}/download/`, { headers: auth() })
    ).json()) as { url: string };
    const bytes = Buffer.from(await (await fetch(dl.url, { headers: auth() })).arrayBuffer());
    expect(bytes.equals(data)).toBe(true);

    // The throw site in the minified bundle: line 1, at `throw`.
    const column = out.code.indexOf('throw') + 1;
    const res = await fetch(`${base}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: h.boot.project_api_key,
        batch: [
          {
            event: '$exception',
            distinct_id: 'cart-browser',
            properties: {
              $exception_list: [
                {
                  type: 'RangeError',
                  value: 'empty cart',
                  stacktrace: {
                    type: 'raw',
                    frames: [
                      {
                        platform: 'web:javascript',
                        filename: 'https://shop.test/cart.min.js',
                        function: 'e',
                        lineno: 1,
                        colno: column,
                        in_app: true,
                        chunk_id: 'cart-1',
                      },
                    ],
                  },
                },
              ],
            },
          },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const q = await h.request('POST', `/api/projects/${h.boot.project_id}/query/`, {
      body: {
        query: {
          kind: 'HogQLQuery',
          query: "select properties.$exception_list from events where distinct_id = 'cart-browser'",
        },
      },
    });
    const [frame] = JSON.parse(q.json().results[0][0])[0].stacktrace.frames;
    expect(frame).toMatchObject({ source: 'src/cart.ts', line: 2, resolved: true });

    const del = await fetch(`${api}error_tracking/symbol_sets/${target.symbol_set_id}/`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${h.key}` },
    });
    expect(del.status).toBe(204);
    await expect(
      s3.send(new HeadObjectCommand({ Bucket: 'burrow-objects', Key: key })),
    ).rejects.toMatchObject({
      name: 'NotFound',
    });
  });
});
