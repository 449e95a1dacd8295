/**
 * chDB runs every session's statement on a libuv worker thread, and libuv has 4 by default, shared
 * with gzip, file and DNS work. With the events store's lanes (docs/isolation.md) up to
 * QUERY_CONCURRENCY + BATCH_EXPORTS_QUERY_CONCURRENCY + 2 statements run at once, so four long
 * queries would hold every thread and capture's insert (and its gzip decoding) would wait for one.
 * The pool is sized before it is first used: this module is imported first by the entry points.
 * An explicit UV_THREADPOOL_SIZE wins.
 */
if (!process.env.UV_THREADPOOL_SIZE) {
  const count = (name: string, fallback: number) => {
    const n = Number(process.env[name]);
    return Number.isSafeInteger(n) && n > 0 ? n : fallback;
  };
  const statements = count('QUERY_CONCURRENCY', 4) + count('BATCH_EXPORTS_QUERY_CONCURRENCY', 1) + 2;
  process.env.UV_THREADPOOL_SIZE = String(Math.min(1024, statements + 8));
}
