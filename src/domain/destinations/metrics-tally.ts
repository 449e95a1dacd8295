import type { MetaDb } from '../../store/meta/db.js';
import { addMetrics } from '../../store/meta/hog-function-logs.js';

export interface MetricCount {
  functionId: string;
  hour: string;
  kind: string;
  name: string;
  count: number;
}

/**
 * Destinations' `filtered` / `masked` counts added up in memory and written together at most
 * every `flushMs`: the matcher runs for every group of capture's requests, and one upsert per run
 * was a tenth of its cost at 45 000 events a second. A count is on the metrics endpoint within
 * `flushMs`; a node killed in between loses at most that much of these counters (never an event
 * or a delivery: they are in the journal and the queue), and so does a write that fails.
 */
export function createMetricsTally(meta: MetaDb, opts: { flushMs: number; onError?: (e: unknown) => void }) {
  let pending = new Map<string, MetricCount>();
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const taken = pending;
    pending = new Map();
    if (taken.size === 0) return writing;
    // A failed write is reported and its counts dropped: retrying a write that fails every time
    // (a destination deleted with its metrics) would grow without end.
    writing = writing.then(() =>
      addMetrics(meta, [...taken.values()]).catch((error: unknown) => opts.onError?.(error)),
    );
    return writing;
  };

  function add(c: MetricCount): void {
    if (c.count <= 0) return;
    const key = `${c.functionId}\n${c.hour}\n${c.kind}\n${c.name}`;
    const known = pending.get(key);
    if (known) known.count += c.count;
    else pending.set(key, { ...c });
    if (!timer) {
      timer = setTimeout(() => void flush(), opts.flushMs);
      timer.unref();
    }
  }

  return { add, flush };
}

export type MetricsTally = ReturnType<typeof createMetricsTally>;
