import { brotliCompressSync as brotliSlow, constants, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { concatInSlices } from '../../src/capture/concat.js';
import { decodeCaptureAsync } from '../../src/capture/decode.js';
import type { DecodeInput } from '../../src/capture/types.js';
import { ApiError } from '../../src/errors.js';

/**
 * The request path decompresses on the thread pool and joins the output in slices (capture at the
 * limits must not hold `/_health` for one long copy); it must decode exactly what the one-shot
 * functions did, and stop at the limit.
 */
// Brotli's default quality takes seconds for a few MB: a fast one decodes the same.
const brotliCompressSync = (text: string) =>
  brotliSlow(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });

const post = (body: Buffer, extra: Partial<DecodeInput> = {}): DecodeInput => ({
  method: 'POST',
  query: {},
  body,
  ...extra,
});

const batch = (n: number) =>
  JSON.stringify({
    api_key: 'phc_x',
    batch: Array.from({ length: n }, (_, i) => ({
      event: 'e',
      distinct_id: `d${i}`,
      properties: { pad: 'x'.repeat(200), i },
    })),
  });

async function errorOf(work: Promise<unknown>): Promise<ApiError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an error');
}

describe('asynchronous decompression', () => {
  it('decodes gzip, deflate, br and concatenated gzip members over many output chunks', async () => {
    // ~2.5 MB decoded: about ten 256 KiB output chunks joined in slices.
    const json = batch(10_000);
    for (const input of [
      post(gzipSync(json)),
      post(gzipSync(json), { contentEncoding: 'gzip' }),
      post(deflateSync(json), { contentEncoding: 'deflate' }),
      post(brotliCompressSync(json), { contentEncoding: 'br' }),
    ]) {
      const decoded = await decodeCaptureAsync(input, { maxDecodedBytes: 10 * 1024 * 1024 });
      expect(decoded.events).toHaveLength(10_000);
      expect(decoded.events[9_999]?.properties).toMatchObject({ i: 9_999 });
    }
    // Two gzip members one after the other decode as their concatenation (as gunzip does).
    const text = batch(3);
    const cut = text.length - 10;
    const members = Buffer.concat([gzipSync(text.slice(0, cut)), gzipSync(text.slice(cut))]);
    expect((await decodeCaptureAsync(post(members))).events).toHaveLength(3);
  });

  it('answers 413 past the decoded limit (also for a bomb) and 400 for a broken stream', async () => {
    const json = batch(2_000);
    for (const encoding of [undefined, 'deflate', 'br'] as const) {
      const body =
        encoding === 'deflate'
          ? deflateSync(json)
          : encoding === 'br'
            ? brotliCompressSync(json)
            : gzipSync(json);
      const error = await errorOf(
        decodeCaptureAsync(post(body, { contentEncoding: encoding }), { maxDecodedBytes: 100_000 }),
      );
      expect([error.status, error.code]).toEqual([413, 'request_too_large']);
    }
    const bomb = gzipSync(Buffer.alloc(200 * 1024 * 1024, 0x20));
    const started = performance.now();
    const error = await errorOf(decodeCaptureAsync(post(bomb), { maxDecodedBytes: 1024 * 1024 }));
    expect([error.status, error.code]).toEqual([413, 'request_too_large']);
    expect(performance.now() - started).toBeLessThan(5_000);

    const truncated = gzipSync(json).subarray(0, 500);
    const broken = await errorOf(decodeCaptureAsync(post(truncated)));
    expect(broken.status).toBe(400);
    const garbage = Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.from('not gzip at all')]);
    expect((await errorOf(decodeCaptureAsync(post(garbage)))).status).toBe(400);
  });
});

describe('concatInSlices', () => {
  it('is Buffer.concat, without copying a single chunk, and gives the event loop back', async () => {
    const chunks = [
      Buffer.alloc(0),
      Buffer.from('ab'),
      Buffer.alloc(3 * 1024 * 1024 + 7, 0x61),
      Buffer.from('z'),
    ];
    expect((await concatInSlices(chunks)).equals(Buffer.concat(chunks))).toBe(true);
    expect((await concatInSlices([])).length).toBe(0);
    const one = Buffer.from('only');
    expect(await concatInSlices([one])).toBe(one);
    // With a zero slice every piece yields: a timer set before it runs before the copy ends.
    let ticked = false;
    setImmediate(() => {
      ticked = true;
    });
    const big = Array.from({ length: 4 }, () => Buffer.alloc(2 * 1024 * 1024, 0x62));
    const joined = concatInSlices(big, 0);
    expect(ticked).toBe(false);
    expect((await joined).length).toBe(8 * 1024 * 1024);
    expect(ticked).toBe(true);
  });
});
