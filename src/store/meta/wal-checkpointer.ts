import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';

export interface WalCheckpointerOptions {
  /** Checkpoint once the WAL file holds at least this many bytes and changed since the last one. */
  minBytes?: number;
  /** How often the WAL file's size is looked at. */
  intervalMs?: number;
  /** Module the worker loads its own connection with (tests point it elsewhere to see the fallback). */
  driver?: string;
  /** Told when the worker fails; the connection then checkpoints on its own again. */
  onError?: (error: unknown) => void;
}

export interface CheckpointResult {
  busy: number;
  /** Frames in the WAL, and how many of them are now in the database file. */
  log: number;
  checkpointed: number;
}

/** What the checkpointer has done so far (tests, diagnostics). */
export interface WalCheckpointer {
  readonly checkpoints: number;
  readonly last: CheckpointResult | undefined;
  /** Whether the worker failed and the connection went back to checkpointing itself. */
  readonly fellBack: boolean;
  /** Checkpoints now (off the event loop), whatever the WAL's size; resolves with the result. */
  checkpoint(): Promise<CheckpointResult>;
  close(): Promise<void>;
}

/** SQLite's own threshold for an automatic checkpoint: 1000 pages of 4 KiB. */
const DEFAULT_MIN_BYTES = 1000 * 4096;
const DEFAULT_INTERVAL_MS = 200;

// CommonJS, evaluated in the worker: its own connection to the same file, one PASSIVE checkpoint
// per message (PASSIVE never waits for, or blocks, the main connection's readers and writer).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ id: message, result });
  } catch (error) {
    parentPort.postMessage({ id: message, error: String(error && error.message || error) });
  }
});
`;

/**
 * Moves the WAL's checkpoints off the event loop. By default SQLite copies the WAL back into the
 * database file from inside whichever commit takes it past 1000 pages, and a checkpoint fsyncs
 * both files: with better-sqlite3 that commit, and every request behind it, waited on the disk.
 * Capture's person writes crossed the threshold every few requests (random uuid keys dirty most
 * index pages), so a third of the time spent creating persons was checkpoints. Here the connection
 * never checkpoints by itself (`wal_autocheckpoint = 0`); a worker thread with a second
 * connection does, once the WAL file is large and has changed since the last checkpoint. The
 * worker starts with the first such checkpoint, so a small or idle database never pays for it. If
 * the worker fails, the connection goes back to SQLite's automatic checkpoints: the WAL must never
 * grow without bound.
 */
export function startWalCheckpointer(
  database: Database,
  file: string,
  options: WalCheckpointerOptions = {},
): WalCheckpointer {
  const minBytes = options.minBytes ?? DEFAULT_MIN_BYTES;
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const driver = options.driver ?? createRequire(import.meta.url).resolve('better-sqlite3');
  const walFile = `${file}-wal`;
  database.pragma('wal_autocheckpoint = 0');

  let worker: Worker | undefined;
  let fellBack = false;
  let closed = false;
  let checkpoints = 0;
  let last: CheckpointResult | undefined;
  let nextId = 0;
  const waiting = new Map<number, { resolve(r: CheckpointResult): void; reject(e: Error): void }>();
  /** The WAL file's mtime when the last checkpoint was asked for: unchanged means nothing new. */
  let checkpointedAt = -1;

  function fallBack(error: unknown): void {
    if (fellBack) return;
    fellBack = true;
    clearInterval(timer);
    options.onError?.(error);
    for (const w of waiting.values()) w.reject(error instanceof Error ? error : new Error(String(error)));
    waiting.clear();
    void worker?.terminate();
    worker = undefined;
    if (!closed) database.pragma('wal_autocheckpoint = 1000');
  }

  function started(): Worker {
    if (worker) return worker;
    const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file } });
    w.on('message', (m: { id: number; result?: CheckpointResult; error?: string }) => {
      const entry = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.error !== undefined) {
        entry?.reject(new Error(m.error));
        return;
      }
      checkpoints++;
      last = m.result;
      if (m.result) entry?.resolve(m.result);
    });
    w.on('error', fallBack);
    w.on('exit', (code) => {
      if (!closed && !fellBack) fallBack(new Error(`WAL checkpointer exited (${code})`));
    });
    // After the listeners: adding a 'message' listener refs the worker's port again, which kept
    // the process alive when unref() came first.
    w.unref();
    worker = w;
    return w;
  }

  function checkpoint(): Promise<CheckpointResult> {
    if (fellBack || closed) return Promise.reject(new Error('WAL checkpointer is not running'));
    const id = nextId++;
    return new Promise<CheckpointResult>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      started().postMessage(id);
    });
  }

  async function tick(): Promise<void> {
    const info = await stat(walFile).catch(() => undefined);
    if (!info || info.size < minBytes || info.mtimeMs === checkpointedAt || closed || fellBack) return;
    checkpointedAt = info.mtimeMs;
    await checkpoint().catch((error) => {
      // Tried again at the next tick: the mtime is forgotten.
      checkpointedAt = -1;
      options.onError?.(error);
    });
  }

  /** The tick in progress: ticks never overlap, and `close` waits for it. */
  let ticking: Promise<void> | undefined;
  const timer = setInterval(() => {
    ticking ??= tick().finally(() => {
      ticking = undefined;
    });
  }, intervalMs);
  timer.unref();
  return {
    get checkpoints() {
      return checkpoints;
    },
    get last() {
      return last;
    },
    get fellBack() {
      return fellBack;
    },
    checkpoint,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      const w = worker;
      worker = undefined;
      if (!w) return;
      await ticking;
      const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      w.postMessage('close');
      await exited;
    },
  };
}
