import { setImmediate as nextTurn } from 'node:timers/promises';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

// How long decoding may hold the event loop before yielding (as the ingest pipeline's slices).
const SLICE_MS = 3;

import { type Codec, decompress, decompressError } from './bytes.js';
import { concatInSlices } from './concat.js';
import { decodedTooLarge } from './errors.js';

/**
 * The decoder is written once, as generators that yield `Step`s: a `tick` where it may pause (every
 * event parsed, every 64 KiB scanned) and an `inflate` when it needs bytes decompressed. The
 * request path runs them with `runAsync` (zlib on the thread pool, the event loop handed back
 * between slices); tests and small bodies with `runSync`.
 */
export type Step = { kind: 'tick' } | { kind: 'inflate'; bytes: Buffer; codec: Codec; max: number };
export type Steps<T> = Generator<Step, T, Buffer | undefined>;

export const TICK: Step = { kind: 'tick' };

export function runSync<T>(steps: Steps<T>): T {
  let next = steps.next();
  while (!next.done) {
    const step = next.value;
    next = steps.next(step.kind === 'inflate' ? decompress(step.bytes, step.codec, step.max) : undefined);
  }
  return next.value;
}

const inflaters = { gzip: createGunzip, deflate: createInflate, br: createBrotliDecompress };

/** Output per zlib callback: few main-thread turns for a large body, each short. */
const INFLATE_CHUNK = 256 * 1024;

/**
 * Decompression on the thread pool, as zlib's one-shot functions do, but the output is joined
 * by `concatInSlices`: the one-shot functions join it with one `Buffer.concat` on the event loop,
 * tens of milliseconds for a body at the limit. Past `max` output bytes the stream is stopped (413).
 */
async function inflateAsync(bytes: Buffer, codec: Codec, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const tooLarge = decodedTooLarge(max);
  try {
    await new Promise<void>((resolve, reject) => {
      const stream = inflaters[codec]({ chunkSize: INFLATE_CHUNK });
      let total = 0;
      stream.on('data', (chunk: Buffer) => {
        total += chunk.length;
        if (total > max) stream.destroy(tooLarge);
        else chunks.push(chunk);
      });
      stream.on('error', reject);
      stream.on('end', resolve);
      stream.end(bytes);
    });
  } catch (error) {
    throw error === tooLarge ? tooLarge : decompressError(error, codec, max);
  }
  return chunks.length === 0 ? Buffer.alloc(0) : concatInSlices(chunks);
}

export async function runAsync<T>(steps: Steps<T>, sliceMs = SLICE_MS): Promise<T> {
  let start = performance.now();
  let next = steps.next();
  while (!next.done) {
    const step = next.value;
    if (step.kind === 'inflate') {
      next = steps.next(await inflateAsync(step.bytes, step.codec, step.max));
      start = performance.now();
      continue;
    }
    if (performance.now() - start >= sliceMs) {
      await nextTurn();
      start = performance.now();
    }
    next = steps.next();
  }
  return next.value;
}
