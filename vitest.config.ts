import { defineConfig } from 'vitest/config';

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
