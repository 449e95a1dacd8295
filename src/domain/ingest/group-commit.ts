import { ApiError } from '../../errors.js';

export interface GroupCommitOptions {
  /** Flush as soon as this many rows are waiting (when a writer is free); the most one write holds. */
  maxRows: number;
  /** Or when the oldest waiting row has waited this long (when a writer is free). */
  maxDelayMs: number;
  /** Refuse new work (503) while more rows than this are waiting or being written. */
  maxPendingRows: number;
  /** Writes that may run at once (default 1); the store needs as many sessions to overlap them. */
  writers?: number;
}

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

export const overloaded = () =>
  new ApiError(503, 'server_error', 'overloaded', 'Burrow is busy writing; retry shortly.', null, {
    'Retry-After': '1',
  });

/**
 * Gathers writes from many requests into one insert: a request's promise settles only when the
 * batch holding its rows has been written, so a 200 means durable.
 *
 * At most `writers` writes run at once, and while every writer is busy nothing is cut off:
 * everything that arrives waits and becomes the next write as soon as one ends. Under load a
 * write therefore holds what arrived during the previous ones, so batches grow with the load by
 * themselves. (Cutting a batch every `maxDelayMs` while a write ran queued dozens of small inserts
 * behind it, and the engine's cost per insert, a part per table and per view, made throughput fall
 * as load rose.) With a writer free, the first rows wait `maxDelayMs` or until `maxRows` are
 * waiting. A second writer lets the rows of requests decoded during an insert start their own
 * insert instead of waiting for it to end: with few requests in flight (16 clients) every request
 * otherwise sat in the same insert, and decoding and inserting alternated instead of overlapping.
 */
export function createGroupCommit<T>(
  write: (items: T[]) => Promise<void>,
  size: (item: T) => number,
  options: GroupCommitOptions,
) {
  const writers = Math.max(1, options.writers ?? 1);
  let batch: T[] = [];
  let waiters: Waiter[] = [];
  let batchRows = 0;
  let pendingRows = 0;
  let timer: NodeJS.Timeout | undefined;
  const running = new Set<Promise<void>>();
  let closed = false;

  function schedule(): void {
    if (running.size >= writers) return; // a running write's end takes what waits
    if (batchRows >= options.maxRows) {
      void flush();
    } else if (!timer) {
      timer = setTimeout(() => void flush(), options.maxDelayMs);
    }
  }

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (running.size >= writers || batch.length === 0) {
      return running.size > 0 ? Promise.race(running) : Promise.resolve();
    }
    // A write holds at most about `maxRows` rows (whole items): the rest waits for the next.
    let count = 0;
    let rows = 0;
    while (count < batch.length && (count === 0 || rows < options.maxRows)) rows += size(batch[count++] as T);
    const items = batch.slice(0, count);
    const settle = waiters.slice(0, count);
    batch = batch.slice(count);
    waiters = waiters.slice(count);
    batchRows -= rows;
    // Counted as written before any caller hears of it: a caller's next request sees the room.
    const settled = () => {
      pendingRows -= rows;
      running.delete(done);
    };
    const done: Promise<void> = (async () => write(items))().then(
      () => {
        settled();
        for (const w of settle) w.resolve();
      },
      (error: unknown) => {
        settled();
        for (const w of settle) w.reject(error);
      },
    );
    running.add(done);
    // Whatever arrived during this write has waited at least as long as it: write it next.
    void done.then(() => {
      if (running.size < writers && batch.length > 0) void flush();
    });
    // Rows beyond `maxRows` (or that arrived meanwhile) may go to a free writer now.
    if (batch.length > 0) schedule();
    return done;
  }

  return {
    add(item: T): Promise<void> {
      const rows = size(item);
      if (closed) return Promise.reject(overloaded());
      if (pendingRows + rows > options.maxPendingRows && pendingRows > 0) return Promise.reject(overloaded());
      pendingRows += rows;
      batchRows += rows;
      batch.push(item);
      const done = new Promise<void>((resolve, reject) => waiters.push({ resolve, reject }));
      schedule();
      return done;
    },
    pendingRows: () => pendingRows,
    /** Writes what is waiting and refuses new work. */
    async close(): Promise<void> {
      closed = true;
      while (running.size > 0 || batch.length > 0) await flush();
    },
  };
}

export type GroupCommit<T> = ReturnType<typeof createGroupCommit<T>>;
