import { defineConfig } from 'vitest/config';

// The forked test processes inherit this: the events store's lanes run chDB statements on libuv
// threads in parallel (src/threadpool.ts sizes the pool the same way for `npm start`).
process.env.UV_THREADPOOL_SIZE ||= '16';

// chDB allows one data directory per process and crashes when loaded in worker threads, so every
// test file runs in its own child process.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    isolate: true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
