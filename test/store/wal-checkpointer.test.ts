import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { type MetaStore, openMetaStore } from '../../src/store/meta/db.js';
import type { WalCheckpointerOptions } from '../../src/store/meta/wal-checkpointer.js';

const at = '2026-01-01T00:00:00.000Z';
/** An organization row whose name carries ~8 KiB, so that each commit adds a few WAL pages. */
const org = (n: number) => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  name: `Org ${n} ${'x'.repeat(8192)}`,
  slug: `org-${n}`,
  created_at: at,
  updated_at: at,
});

const autocheckpoint = async (store: MetaStore) =>
  Number(
    Object.values(
      (await sql<Record<string, number>>`PRAGMA wal_autocheckpoint`.execute(store.db)).rows[0] ?? {},
    )[0],
  );

/** Writes `count` rows, one transaction each, letting the event loop turn between them. */
async function write(
  store: MetaStore,
  from: number,
  count: number,
  walFile: string,
  pace?: () => Promise<void>,
): Promise<number> {
  let largest = 0;
  for (let i = from; i < from + count; i++) {
    await store.db.insertInto('organizations').values(org(i)).execute();
    await pace?.();
    largest = Math.max(largest, existsSync(walFile) ? statSync(walFile).size : 0);
    await new Promise((r) => setTimeout(r, 2));
  }
  return largest;
}

const until = async (check: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

/**
 * SQLite's WAL is checkpointed by a worker thread, never by a commit on the event loop (a
 * checkpoint fsyncs; see wal-checkpointer.ts).
 */
describe('metadata WAL checkpoints', () => {
  const dirs: string[] = [];
  const stores: MetaStore[] = [];
  const open = async (walCheckpoint: WalCheckpointerOptions) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'burrow-wal-'));
    dirs.push(dataDir);
    const store = await openMetaStore({ dataDir, walCheckpoint });
    stores.push(store);
    return { store, walFile: join(dataDir, 'metadata.sqlite-wal'), dataDir };
  };
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('keeps the WAL bounded although the connection never checkpoints by itself', async () => {
    const { store, walFile } = await open({ minBytes: 128 * 1024, intervalMs: 10 });
    expect(await autocheckpoint(store)).toBe(0);
    // ~6 MB through the WAL: without checkpoints the file would grow to that. Past 1 MB, a write
    // that grew the file waits for the worker's next checkpoint (a loaded 2-core machine may starve
    // the worker for a while, as it would any thread), so the bound checks that checkpoints happen
    // and that the WAL is reused after them, not how fast the worker gets the CPU.
    let grown = 0;
    const largest = await write(store, 1, 600, walFile, async () => {
      const size = existsSync(walFile) ? statSync(walFile).size : 0;
      if (size < 1024 * 1024 || size <= grown) return; // below 1 MB, or reused after a checkpoint
      grown = size;
      const seen = store.checkpointer?.checkpoints ?? 0;
      await until(() => (store.checkpointer?.checkpoints ?? 0) > seen);
    });
    expect(store.checkpointer?.checkpoints).toBeGreaterThan(0);
    expect(store.checkpointer?.last?.checkpointed).toBeGreaterThan(0);
    expect(store.checkpointer?.fellBack).toBe(false);
    expect(largest).toBeLessThan(2 * 1024 * 1024);
    const rows = await store.db.selectFrom('organizations').select('id').execute();
    expect(rows).toHaveLength(600);
  });

  it('checkpoints nothing while the WAL is small: the worker is not even started', async () => {
    const { store, walFile } = await open({ minBytes: 64 * 1024 * 1024, intervalMs: 10 });
    await write(store, 1, 20, walFile);
    await new Promise((r) => setTimeout(r, 50));
    expect(store.checkpointer?.checkpoints).toBe(0);
  });

  it('goes back to SQLite’s automatic checkpoints when the worker fails', async () => {
    const errors: unknown[] = [];
    const { store, walFile } = await open({
      minBytes: 16 * 1024,
      intervalMs: 10,
      driver: '/nonexistent/sqlite-driver.js',
      onError: (e) => errors.push(e),
    });
    await write(store, 1, 10, walFile);
    await until(() => store.checkpointer?.fellBack === true);
    expect(errors.length).toBeGreaterThan(0);
    expect(await autocheckpoint(store)).toBe(1000);
    // The store still works, and SQLite's own checkpoints (every 1000 pages, ~4 MB) keep the WAL
    // bounded: ~12 MB go through it.
    const largest = await write(store, 100, 1000, walFile);
    expect(largest).toBeLessThan(6 * 1024 * 1024);
  });

  it('closes the worker first, so the last connection checkpoints everything and removes the WAL', async () => {
    const { store, walFile, dataDir } = await open({ minBytes: 64 * 1024, intervalMs: 10 });
    await write(store, 1, 50, walFile);
    await until(() => (store.checkpointer?.checkpoints ?? 0) > 0);
    await store.close();
    stores.splice(stores.indexOf(store), 1);
    expect(existsSync(walFile)).toBe(false);
    const again = await openMetaStore({ dataDir });
    try {
      expect(await again.db.selectFrom('organizations').select('id').execute()).toHaveLength(50);
    } finally {
      await again.close();
    }
  });

  it('checkpoint() runs one on demand and answers what it did', async () => {
    const { store, walFile } = await open({ minBytes: 1024 * 1024 * 1024, intervalMs: 1000 });
    await write(store, 1, 5, walFile);
    const result = await store.checkpointer?.checkpoint();
    expect(result?.busy).toBe(0);
    expect(result?.log).toBeGreaterThan(0);
    expect(result?.checkpointed).toBe(result?.log);
  });
});
