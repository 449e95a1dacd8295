import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { runInNewContext } from 'node:vm';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSymbolData } from '../../src/domain/error-tracking/symbol-data.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * Symbol sets and releases exactly as posthog-cli's source sends them (cli/src/api/symbol_sets.rs,
 * releases.rs: paths without a trailing slash, the presigned POST as a multipart form of the
 * answered fields plus `file`), then a minified bundle's exception resolved through the uploaded
 * map at capture.
 */
describe(`symbol sets, releases and symbolication (${backend})`, () => {
  let h: Harness;
  let base: string;
  let api: string;
  const FILE = 'https://shop.test/static/app.min.js';
  const SOURCE = [
    'export function applyCoupon(cart, code) {',
    '  if (!cart.coupons.includes(code)) {',
    "    throw new TypeError('unknown coupon ' + code);",
    '  }',
    '  return cart.total * 0.9;',
    '}',
    'globalThis.run = () => applyCoupon({ coupons: [], total: 10 }, "SPRING");',
  ].join('\n');
  let minified = '';
  let map = '';
  let position: { fn: string; line: number; column: number } = { fn: '', line: 0, column: 0 };

  type Target = { symbol_set_id: string; presigned_url: { url: string; fields: Record<string, string> } };
  type Json = {
    id: string;
    id_map: Record<string, Target>;
    results: { id: string }[];
    url: string;
    detail: string;
    version: string;
  };
  const json = async (r: Response) => (await r.json()) as Json;
  const auth = () => ({ authorization: `Bearer ${h.key}`, 'content-type': 'application/json' });
  const post = (path: string, body: unknown) =>
    fetch(`${api}${path}`, { method: 'POST', headers: auth(), body: JSON.stringify(body) });

  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    api = `${base}/api/projects/${h.boot.project_id}/`;
    const out = await transform(SOURCE, {
      minify: true,
      sourcemap: 'external',
      sourcefile: 'src/checkout.ts',
      format: 'iife',
      sourcesContent: true,
    });
    minified = out.code;
    map = out.map;
    // Where V8 says the minified bundle threw (1-based line and column), as posthog-js reports it.
    const sandbox: { run?: () => void } = {};
    runInNewContext(minified, { globalThis: sandbox }, { filename: FILE });
    try {
      sandbox.run?.();
    } catch (e) {
      const line = String((e as Error).stack)
        .split('\n')
        .find((l) => l.includes(FILE)) as string;
      const m = /at (\S+) .*:(\d+):(\d+)\)?$/.exec(line) as RegExpExecArray;
      position = { fn: String(m[1]), line: Number(m[2]), column: Number(m[3]) };
    }
    expect(position.line).toBeGreaterThan(0);
  });
  afterAll(async () => h?.close());

  async function upload(url: string, fields: Record<string, string>, data: Buffer) {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('file', new Blob([data]), 'file');
    return fetch(url, { method: 'POST', body: form });
  }

  it('creates and finds a release by hash, as the CLI does', async () => {
    const hash = createHash('sha512').update('shop').update('1.0.0').digest('hex');
    expect((await fetch(`${api}error_tracking/releases/hash/${hash}`, { headers: auth() })).status).toBe(404);
    const created = await post('error_tracking/releases', {
      hash_id: hash,
      version: '1.0.0',
      project: 'shop',
      metadata: { git: { branch: 'main' } },
    });
    expect(created.status).toBe(201);
    const release = await json(created);
    const found = await fetch(`${api}error_tracking/releases/hash/${hash}`, { headers: auth() });
    expect(await json(found)).toMatchObject({ id: release.id, version: '1.0.0', project: 'shop' });
  });

  it('uploads a symbol set through the start / upload / finish protocol and resolves a minified frame', async () => {
    const data = writeSymbolData(minified, map);
    const contentHash = createHash('sha512').update(data).digest('hex');
    const start = await post('error_tracking/symbol_sets/bulk_start_upload', {
      symbol_sets: [{ chunk_id: 'chunk-shop-1', release_id: null, content_hash: contentHash }],
      force: false,
      skip_on_conflict: false,
    });
    expect(start.status, await start.clone().text()).toBe(200);
    const { id_map } = await json(start);
    const target = id_map['chunk-shop-1'] as Target;
    expect(target.presigned_url.url.startsWith(base)).toBe(true);
    // Wrong token: refused, and the right one still works after.
    const wrong = await upload(
      target.presigned_url.url,
      { ...target.presigned_url.fields, token: 'x' },
      data,
    );
    expect(wrong.status).toBe(403);
    const up = await upload(target.presigned_url.url, target.presigned_url.fields, data);
    expect(up.status).toBe(204);
    const again = await upload(target.presigned_url.url, target.presigned_url.fields, data);
    expect(again.status).toBe(403);
    const finish = await post('error_tracking/symbol_sets/bulk_finish_upload', {
      content_hashes: { [target.symbol_set_id]: contentHash },
    });
    expect(finish.status, await finish.clone().text()).toBe(201);
    // The same content again: nothing to upload.
    const repeat = await post('error_tracking/symbol_sets/bulk_start_upload', {
      symbol_sets: [{ chunk_id: 'chunk-shop-1', content_hash: contentHash }],
    });
    expect((await json(repeat)).id_map).toEqual({});
    const byRef = await json(
      await fetch(`${api}error_tracking/symbol_sets/?ref=chunk-shop-1&limit=1`, { headers: auth() }),
    );
    expect(byRef.results[0]?.id).toBe(target.symbol_set_id);
    const dl = await json(
      await fetch(`${api}error_tracking/symbol_sets/${target.symbol_set_id}/download/`, { headers: auth() }),
    );
    const bytes = Buffer.from(await (await fetch(dl.url, { headers: auth() })).arrayBuffer());
    expect(bytes.equals(data)).toBe(true);

    const res = await fetch(`${base}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: h.boot.project_api_key,
        batch: [
          {
            event: '$exception',
            distinct_id: 'browser',
            properties: {
              $exception_list: [
                {
                  type: 'TypeError',
                  value: 'unknown coupon SPRING',
                  mechanism: { handled: false, type: 'onerror' },
                  stacktrace: {
                    type: 'raw',
                    frames: [
                      {
                        platform: 'web:javascript',
                        filename: FILE,
                        function: position.fn,
                        lineno: position.line,
                        colno: position.column,
                        in_app: true,
                        chunk_id: 'chunk-shop-1',
                      },
                      {
                        platform: 'web:javascript',
                        filename: 'https://cdn.test/other.js',
                        function: 'x',
                        lineno: 1,
                        colno: 9,
                        in_app: true,
                        chunk_id: 'unknown-chunk',
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
          query:
            "select properties.$exception_list, properties.$exception_functions from events where distinct_id = 'browser'",
        },
      },
    });
    const [list, functions] = q.json().results[0];
    const [frame, other] = JSON.parse(list)[0].stacktrace.frames;
    expect(frame).toMatchObject({
      source: 'src/checkout.ts',
      line: 3,
      resolved: true,
      resolved_name: 'applyCoupon',
    });
    expect(frame.context.line.line).toContain('throw new TypeError');
    expect(frame.context.before.length).toBeGreaterThan(0);
    expect(other).toMatchObject({ resolved: false, resolve_failure: 'No symbol set for this chunk' });
    expect(JSON.parse(functions)).toContain('applyCoupon');
  });

  it('refuses an invalid or compressed symbol set at finish, an oversized upload, and deletes', async () => {
    const start = await post('error_tracking/symbol_sets/bulk_start_upload', {
      symbol_sets: [
        { chunk_id: 'bad-1', content_hash: 'a' },
        { chunk_id: 'zstd-1', content_hash: 'b' },
        { chunk_id: 'big-1', content_hash: 'c' },
      ],
    });
    const { id_map: ids } = await json(start);
    const id_map = ids as Record<'bad-1' | 'zstd-1' | 'big-1', Target>;
    const garbage = Buffer.from('PK\u0003\u0004 not a symbol set');
    expect(
      (await upload(id_map['bad-1'].presigned_url.url, id_map['bad-1'].presigned_url.fields, garbage)).status,
    ).toBe(204);
    const bad = await post('error_tracking/symbol_sets/bulk_finish_upload', {
      content_hashes: { [id_map['bad-1'].symbol_set_id]: 'a' },
    });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ type: 'validation_error', code: 'invalid_symbol_set' });
    // Version 2, compression 1 (zstd), and a payload that is no zstd frame.
    const zstd = Buffer.concat([writeSymbolData('x', '{}').subarray(0, 30), Buffer.alloc(21)]);
    zstd.writeUInt32LE(2, 22);
    zstd.writeUInt8(1, 30);
    await upload(id_map['zstd-1'].presigned_url.url, id_map['zstd-1'].presigned_url.fields, zstd);
    const z = await post('error_tracking/symbol_sets/bulk_finish_upload', {
      content_hashes: { [id_map['zstd-1'].symbol_set_id]: 'b' },
    });
    expect(z.status).toBe(400);
    expect((await json(z)).detail).toMatch(/zstd/);
    // Never uploaded: a clear 400.
    const none = await post('error_tracking/symbol_sets/bulk_finish_upload', {
      content_hashes: { [id_map['big-1'].symbol_set_id]: 'c' },
    });
    expect(none.status).toBe(400);

    // 200 MB: refused with a 413 before it is all read.
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(id_map['big-1'].presigned_url.url);
      const req = httpRequest(
        url,
        {
          method: 'POST',
          headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': 200 * 1024 * 1024 },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      const chunk = Buffer.alloc(1024 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 200) {
          sent++;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    expect(status).toBe(413);

    const id = id_map['bad-1'].symbol_set_id;
    const del = await fetch(`${api}error_tracking/symbol_sets/${id}/`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${h.key}` },
    });
    expect(del.status).toBe(204);
    expect((await fetch(`${api}error_tracking/symbol_sets/${id}/`, { headers: auth() })).status).toBe(404);
  });

  it('needs a key for everything but the upload target', async () => {
    expect(
      (await fetch(`${api}error_tracking/symbol_sets/bulk_start_upload`, { method: 'POST' })).status,
    ).toBe(401);
    expect((await fetch(`${api}error_tracking/releases`, { method: 'GET' })).status).toBe(401);
  });
});
