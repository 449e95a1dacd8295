import {
  brotliDecompressSync,
  createBrotliDecompress,
  createGunzip,
  createInflate,
  gunzipSync,
  inflateSync,
} from 'node:zlib';

// How long decoding may hold the event loop before yielding (as the ingest pipeline's slices).
const SLICE_MS = 3;

import { type Codec, decompress, decompressError } from './bytes.js';
import { concatInSlices } from './concat.js';
import { decodedTooLarge } from './errors.js';
import { type TurnKey, turn } from './turns.js';

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

const inflatersSync = { gzip: gunzipSync, deflate: inflateSync, br: brotliDecompressSync };

/**
 * Bodies up to this size compressed are first inflated in line, with the output capped at
 * `INLINE_MAX_OUTPUT`. zlib's asynchronous path costs the event loop about as much as inflating a
 * small body outright (the write into the stream and its callbacks), plus a stream, a thread-pool
 * round trip per 16 KiB of output and a final copy: for the usual SDK batch (a few KiB of gzip,
 * tens of KiB of JSON) it took 3-4 times the CPU of the synchronous call (docs/benchmarks-history.md, "Capture").
 * The cap bounds what one in-line call can hold the event loop for (about a millisecond); a body
 * that inflates past it is started again on the thread pool with the request's own limit.
 */
export const INLINE_MAX_INPUT = 64 * 1024;
export const INLINE_MAX_OUTPUT = 1024 * 1024;

function inflateInline(bytes: Buffer, codec: Codec, max: number): Buffer | undefined {
  if (bytes.length > INLINE_MAX_INPUT) return undefined;
  const cap = Math.min(max, INLINE_MAX_OUTPUT);
  try {
    return inflatersSync[codec](bytes, { maxOutputLength: cap });
  } catch (error) {
    // Past the in-line cap but maybe within the request's: the thread pool decides.
    if (cap < max && (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return undefined;
    throw decompressError(error, codec, max);
  }
}

const inflaters = { gzip: createGunzip, deflate: createInflate, br: createBrotliDecompress };

/** Output per zlib callback: few main-thread turns for a large body, each short. */
const INFLATE_CHUNK = 256 * 1024;

/**
 * Decompression on the thread pool, as zlib's one-shot functions do, but the output is joined
 * by `concatInSlices`: the one-shot functions join it with one `Buffer.concat` on the event loop,
 * tens of milliseconds for a body at the limit. Past `max` output bytes the stream is stopped (413).
 */
async function inflateAsync(bytes: Buffer, codec: Codec, max: number, key: TurnKey): Promise<Buffer> {
  const inline = inflateInline(bytes, codec, max);
  if (inline) return inline;
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
  return chunks.length === 0 ? Buffer.alloc(0) : concatInSlices(chunks, undefined, key);
}

/** `key`: the project the work is for, as far as known (its pauses wait for its turn: turns.ts). */
export async function runAsync<T>(steps: Steps<T>, key?: TurnKey, sliceMs = SLICE_MS): Promise<T> {
  let start = performance.now();
  let next = steps.next();
  while (!next.done) {
    const step = next.value;
    if (step.kind === 'inflate') {
      next = steps.next(await inflateAsync(step.bytes, step.codec, step.max, key));
      start = performance.now();
      continue;
    }
    if (performance.now() - start >= sliceMs) {
      await turn(key);
      start = performance.now();
    }
    next = steps.next();
  }
  return next.value;
}
