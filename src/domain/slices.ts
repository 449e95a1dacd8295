import { setImmediate as nextTurn } from 'node:timers/promises';

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
