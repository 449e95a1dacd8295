import { describe, expect, it } from 'vitest';
import { createGroupCommit } from '../src/domain/ingest/group-commit.js';

describe('group commit', () => {
  it('gathers concurrent work into one write and settles each caller after it', async () => {
    const writes: number[][] = [];
    const commit = createGroupCommit<number>(
      async (items) => {
        writes.push(items);
      },
      () => 1,
      { maxRows: 1000, maxDelayMs: 5, maxPendingRows: 10_000 },
    );
    await Promise.all([1, 2, 3].map((n) => commit.add(n)));
    expect(writes).toEqual([[1, 2, 3]]);
  });

  it('flushes at once when a batch is full', async () => {
    const writes: number[][] = [];
    const commit = createGroupCommit<number>(
      async (items) => void writes.push(items),
      (n) => n,
      {
        maxRows: 10,
        maxDelayMs: 60_000,
        maxPendingRows: 100,
      },
    );
    await commit.add(10);
    expect(writes).toEqual([[10]]);
  });

  it('rejects every caller of a failed write, and later writes still work', async () => {
    let fail = true;
    const commit = createGroupCommit<number>(
      async () => {
        if (fail) throw new Error('disk full');
      },
      () => 1,
      { maxRows: 100, maxDelayMs: 1, maxPendingRows: 100 },
    );
    const results = await Promise.allSettled([commit.add(1), commit.add(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await expect(commit.add(3)).resolves.toBeUndefined();
    expect(commit.pendingRows()).toBe(0);
  });

  it('answers 503 with Retry-After instead of queueing without bound', async () => {
    let release!: () => void;
    const blocked = new Promise<void>((r) => {
      release = r;
    });
    const commit = createGroupCommit<number>(
      () => blocked,
      (n) => n,
      { maxRows: 5, maxDelayMs: 1, maxPendingRows: 10 },
    );
    const first = commit.add(8);
    await expect(commit.add(5)).rejects.toMatchObject({ status: 503, headers: { 'Retry-After': '1' } });
    release();
    await first;
    await expect(commit.add(5)).resolves.toBeUndefined();
  });

  it('writes what is waiting on close and refuses new work after', async () => {
    const writes: number[][] = [];
    const commit = createGroupCommit<number>(
      async (items) => void writes.push(items),
      () => 1,
      {
        maxRows: 100,
        maxDelayMs: 60_000,
        maxPendingRows: 100,
      },
    );
    const pending = commit.add(7);
    await commit.close();
    await pending;
    expect(writes).toEqual([[7]]);
    await expect(commit.add(8)).rejects.toMatchObject({ status: 503 });
  });
});
