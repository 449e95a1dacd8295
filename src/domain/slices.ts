import { setImmediate as nextTurn } from 'node:timers/promises';
import { concatInSlices } from '../capture/concat.js';

/**
 * Long loops over a request's items (decoding, normalising, person processing, encoding rows)
 * give the event loop back every few milliseconds, so that one large request cannot hold every
 * other request (and `/_health`) behind it. Node runs every queued `setImmediate` callback in one
 * phase before it polls sockets again, so with N requests slicing at once a waiting socket may
 * wait N slices: the slice is kept short.
 */
export const SLICE_MS = 3;

/** Call `await pause()` often (per item); it yields only once the current slice is used up. */
export function slicer(sliceMs = SLICE_MS): () => Promise<void> | undefined {
  let start = performance.now();
  return () => {
    if (performance.now() - start < sliceMs) return undefined;
    return nextTurn().then(() => {
      start = performance.now();
    });
  };
}

/** `items.map(fn)`, yielding between items once a slice is used up. */
export async function mapInSlices<T, U>(
  items: readonly T[],
  fn: (item: T, index: number) => U,
  sliceMs = SLICE_MS,
): Promise<U[]> {
  const pause = slicer(sliceMs);
  const out = new Array<U>(items.length);
  for (let i = 0; i < items.length; i++) {
    out[i] = fn(items[i] as T, i);
    const wait = pause();
    if (wait) await wait;
  }
  return out;
}

/**
 * At most `slots` holders at once, the others waiting in arrival order. Capture decodes at most a
 * few requests at a time: its work is CPU on the one event loop, so more at once only adds memory
 * and makes every waiting socket wait one more slice per request in progress.
 */
export function createGate(slots: number) {
  let free = slots;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  return {
    async run<T>(fn: () => Promise<T>): Promise<T> {
      if (free > 0) free--;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await fn();
      } finally {
        release();
      }
    },
    get waiting() {
      return waiting.length;
    },
  };
}

/**
 * `Buffer.from(items.map(fn).join(''))` in slices: a request's rows are encoded a slice at a time
 * (one join and UTF-8 encoding of megabytes would be one long task), then copied together.
 */
export async function joinInSlices<T>(
  items: readonly T[],
  fn: (item: T, index: number) => string,
  sliceMs = SLICE_MS,
): Promise<Buffer> {
  const pause = slicer(sliceMs);
  const chunks: Buffer[] = [];
  let parts: string[] = [];
  for (let i = 0; i < items.length; i++) {
    parts.push(fn(items[i] as T, i));
    const wait = pause();
    if (wait) {
      chunks.push(Buffer.from(parts.join('')));
      parts = [];
      await wait;
    }
  }
  if (parts.length > 0) chunks.push(Buffer.from(parts.join('')));
  if (chunks.length === 0) return Buffer.alloc(0);
  // Copied together in slices too: a request at the limits encodes tens of MB of rows.
  return concatInSlices(chunks, sliceMs);
}
