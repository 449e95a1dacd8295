import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';

// How long decoding may hold the event loop before yielding (as the ingest pipeline's slices).
const SLICE_MS = 3;

import { type Codec, decompress, decompressError } from './bytes.js';

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

const inflaters = {
  gzip: promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

async function inflateAsync(bytes: Buffer, codec: Codec, max: number): Promise<Buffer> {
  try {
    return await inflaters[codec](bytes, { maxOutputLength: max });
  } catch (error) {
    throw decompressError(error, codec, max);
  }
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
