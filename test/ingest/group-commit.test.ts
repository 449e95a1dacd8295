import { describe, expect, it, vi } from 'vitest';
import { createGroupCommit } from '../../src/domain/ingest/group-commit.js';

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

  it('while a write runs, later work waits and goes out as one write when it ends', async () => {
    const writes: number[][] = [];
    let release!: () => void;
    const commit = createGroupCommit<number>(
      async (items) => {
        writes.push(items);
        if (writes.length === 1) await new Promise<void>((r) => (release = r));
      },
      () => 1,
      { maxRows: 100, maxDelayMs: 1, maxPendingRows: 1000 },
    );
    const first = commit.add(1);
    await new Promise((r) => setTimeout(r, 20)); // the first write is running
    // Arrivals several delays apart: none of them is cut off into a batch of its own.
    const later: Array<Promise<void>> = [];
    for (const n of [2, 3, 4]) {
      later.push(commit.add(n));
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(writes).toEqual([[1]]);
    release();
    await Promise.all([first, ...later]);
    expect(writes).toEqual([[1], [2, 3, 4]]);
  });

  it('a write holds whole items up to about maxRows; the rest follows', async () => {
    const writes: number[][] = [];
    let release!: () => void;
    const commit = createGroupCommit<number>(
      async (items) => {
        writes.push(items);
        if (writes.length === 1) await new Promise<void>((r) => (release = r));
      },
      (n) => n,
      { maxRows: 10, maxDelayMs: 1, maxPendingRows: 1000 },
    );
    const first = commit.add(10);
    await new Promise((r) => setTimeout(r, 5));
    const later = [4, 4, 4, 4].map((n) => commit.add(n));
    release();
    await Promise.all([first, ...later]);
    // 4 + 4 = 8 < 10 takes a third item (12 rows); the last goes alone.
    expect(writes).toEqual([[10], [4, 4, 4], [4]]);
    expect(commit.pendingRows()).toBe(0);
  });

  it('with two writers, work that arrives during a write goes out in a second write at once', async () => {
    const started: number[][] = [];
    const releases: Array<() => void> = [];
    const commit = createGroupCommit<number>(
      (items) => {
        started.push(items);
        return new Promise<void>((r) => releases.push(r));
      },
      () => 1,
      { maxRows: 100, maxDelayMs: 1, maxPendingRows: 100, writers: 2 },
    );
    const first = commit.add(1);
    await vi.waitFor(() => expect(started).toEqual([[1]]));
    const second = commit.add(2);
    await vi.waitFor(() => expect(started).toEqual([[1], [2]]));
    // Both writers busy: the next work waits for one of them, then goes out whole.
    const third = Promise.all([commit.add(3), commit.add(4)]);
    await new Promise((r) => setTimeout(r, 20));
    expect(started).toHaveLength(2);
    releases[1]?.();
    await second;
    await vi.waitFor(() => expect(started).toEqual([[1], [2], [3, 4]]));
    releases[0]?.();
    releases[2]?.();
    await Promise.all([first, third]);
    expect(commit.pendingRows()).toBe(0);
    await commit.close();
  });
});
