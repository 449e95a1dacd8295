import { concatInSlices } from '../capture/concat.js';
import { type TurnKey, turn } from '../capture/turns.js';
import { FairQueue } from '../store/events/fair-queue.js';

/**
 * Long loops over a request's items (decoding, normalising, person processing, encoding rows)
 * give the event loop back every few milliseconds, so that one large request cannot hold every
 * other request (and `/_health`) behind it. The pauses wait for their key's turn
 * (`capture/turns.ts`: one slice per turn of the event loop, projects in turn), so a waiting
 * socket waits one slice however many requests are slicing, and a project flooding capture gets
 * the same share of the event loop as a project sending one request.
 */
export const SLICE_MS = 3;

/**
 * Call `await pause()` often (per item); it yields only once the current slice is used up, until
 * `key`'s turn (the project; `undefined` for work of no project).
 */
export function slicer(sliceMs = SLICE_MS, key?: TurnKey): () => Promise<void> | undefined {
  let start = performance.now();
  return () => {
    if (performance.now() - start < sliceMs) return undefined;
    return turn(key).then(() => {
      start = performance.now();
    });
  };
}

/** `items.map(fn)`, yielding between items once a slice is used up. */
export async function mapInSlices<T, U>(
  items: readonly T[],
  fn: (item: T, index: number) => U,
  key?: TurnKey,
  sliceMs = SLICE_MS,
): Promise<U[]> {
  const pause = slicer(sliceMs, key);
  const out = new Array<U>(items.length);
  for (let i = 0; i < items.length; i++) {
    out[i] = fn(items[i] as T, i);
    const wait = pause();
    if (wait) await wait;
  }
  return out;
}

/**
 * At most `slots` holders per project and `slots + 1` in all: capture decodes a few requests at a
 * time (its work is CPU on the one event loop, so more at once only adds memory and makes every
 * waiting socket wait longer), and the one slot a project cannot take is always there for another
 * project's request, however many requests the first has waiting. Lines are served in turn
 * (`FairQueue`, as queries are: docs/isolation.md), first come first served within a project.
 * `undefined` is the line of requests whose project is not known before they are decoded.
 */
export function createGate(slots: number) {
  const queue = new FairQueue<TurnKey>({ capacity: slots + 1, share: slots });
  return {
    async run<T>(key: TurnKey, fn: () => Promise<T>): Promise<T> {
      // FairQueue takes `undefined` for "no key waiting": the unknown line is ''.
      const release = await queue.acquire(key ?? '');
      try {
        return await fn();
      } finally {
        release();
      }
    },
    get waiting() {
      return queue.stats().waiting;
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
  key?: TurnKey,
  sliceMs = SLICE_MS,
): Promise<Buffer> {
  const pause = slicer(sliceMs, key);
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
  return concatInSlices(chunks, sliceMs, key);
}
