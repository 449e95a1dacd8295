import { ApiError } from '../errors.js';

export interface GroupCommitOptions {
  /** Flush as soon as this many rows are waiting. */
  maxRows: number;
  /** Or when the oldest waiting row has waited this long. */
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
 * batch holding its rows has been written, so a 200 means durable. One flush runs at a time;
 * while it runs the next batch fills. `size` says how many rows a unit of work holds.
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
  let flushing: Promise<void> = Promise.resolve();
  let closed = false;

  function schedule(): void {
    if (batchRows >= options.maxRows) {
      void flush();
    } else if (!timer) {
      timer = setTimeout(() => void flush(), options.maxDelayMs);
    }
  }

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (batch.length === 0) return flushing;
    const items = batch;
    const settle = waiters;
    const rows = batchRows;
    batch = [];
    waiters = [];
    batchRows = 0;
    flushing = flushing.then(async () => {
      try {
        await write(items);
        for (const w of settle) w.resolve();
      } catch (error) {
        for (const w of settle) w.reject(error);
      } finally {
        pendingRows -= rows;
      }
    });
    return flushing;
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
      await flush();
    },
  };
}

export type GroupCommit<T> = ReturnType<typeof createGroupCommit<T>>;
