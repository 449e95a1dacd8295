/**
 * Turns of the event loop for work done in slices (decoding, normalising, person processing,
 * encoding rows), shared between projects.
 *
 * A long loop gives the event loop back once it has run a few milliseconds (`SLICE_MS` in
 * `domain/slices.ts` and `steps.ts`). It used to do so with its own `setImmediate`; Node runs every
 * immediate queued before the check phase in that one phase, so with N large requests in progress
 * every socket (another project's one-event `/batch/`, `/_health`) waited N slices per turn of the
 * loop, and a request needs several turns (body, metadata, fsync, answer). Eight flooding clients
 * took another project's p99 from 14 ms to 1.1 s (docs/benchmarks-history.md, "Capture floods").
 *
 * Here the slices wait in lines, one per key (the project, or `undefined` when not known yet), and
 * one slice runs per turn of the event loop, the keys taken in turn (round robin; first come first
 * served within a key). So I/O waits at most one slice whatever the number of requests in
 * progress, and a project with many large requests gets as many slices as a project with one.
 * The CPU stays busy: a turn with nothing else to do costs microseconds.
 */
export type TurnKey = number | string | undefined;

const lines = new Map<TurnKey, Array<() => void>>();
let scheduled = false;

/** Resolves when it is `key`'s turn to run its next slice. */
export function turn(key?: TurnKey): Promise<void> {
  return new Promise((resolve) => {
    const line = lines.get(key);
    if (line) line.push(resolve);
    else lines.set(key, [resolve]);
    if (!scheduled) {
      scheduled = true;
      setImmediate(grant);
    }
  });
}

/** Slices waiting, all keys together (for tests and diagnostics). */
export function waitingTurns(): number {
  let n = 0;
  for (const line of lines.values()) n += line.length;
  return n;
}

function grant(): void {
  scheduled = false;
  // The key waiting longest since its last turn: a Map iterates in insertion order, and a served
  // key with more waiting is inserted again at the end.
  const first = lines.entries().next();
  if (first.done) return;
  const [key, line] = first.value;
  const resolve = line.shift() as () => void;
  lines.delete(key);
  if (line.length > 0) lines.set(key, line);
  // Queued from the check phase, the next grant runs in the next turn of the loop, after its I/O.
  if (lines.size > 0) {
    scheduled = true;
    setImmediate(grant);
  }
  resolve();
}
