import { ApiError } from '../../errors.js';

export interface GroupCommitOptions {
  /** Flush as soon as this many rows are waiting (when no write is running); the most one write holds. */
  maxRows: number;
  /** Or when the oldest waiting row has waited this long (when no write is running). */
  maxDelayMs: number;
  /** Refuse new work (503) while more rows than this are waiting or being written. */
  maxPendingRows: number;
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
 * One write runs at a time, and while it runs nothing is cut off: everything that arrives waits
 * and becomes the next write as soon as the running one ends. Under load a write therefore holds
 * what arrived during the previous one, so batches grow with the load by themselves. (Cutting a
 * batch every `maxDelayMs` while a write ran queued dozens of small inserts behind it, and the
 * engine's cost per insert, a part per table and per view, made throughput fall as load rose.)
 * When idle, the first rows wait `maxDelayMs` or until `maxRows` are waiting.
 */
export function createGroupCommit<T>(
  write: (items: T[]) => Promise<void>,
  size: (item: T) => number,
  options: GroupCommitOptions,
) {
  let batch: T[] = [];
  let waiters: Waiter[] = [];
  let batchRows = 0;
  let pendingRows = 0;
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> | undefined;
  let closed = false;

  function schedule(): void {
    if (writing) return; // the running write's end takes what waits
    if (batchRows >= options.maxRows) {
      void flush();
    } else if (!timer) {
      timer = setTimeout(() => void flush(), options.maxDelayMs);
    }
  }

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (writing) return writing;
    if (batch.length === 0) return Promise.resolve();
    // A write holds at most about `maxRows` rows (whole items): the rest waits for the next.
    let count = 0;
    let rows = 0;
    while (count < batch.length && (count === 0 || rows < options.maxRows)) rows += size(batch[count++] as T);
    const items = batch.slice(0, count);
    const settle = waiters.slice(0, count);
    batch = batch.slice(count);
    waiters = waiters.slice(count);
    batchRows -= rows;
    writing = (async () => {
      try {
        await write(items);
        for (const w of settle) w.resolve();
      } catch (error) {
        for (const w of settle) w.reject(error);
      } finally {
        pendingRows -= rows;
        writing = undefined;
      }
    })();
    const done = writing;
    // Whatever arrived during this write has waited at least as long as it: write it next.
    void done.then(() => {
      if (!writing && batch.length > 0) void flush();
    });
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
      while (writing || batch.length > 0) await flush();
    },
  };
}

export type GroupCommit<T> = ReturnType<typeof createGroupCommit<T>>;
