import { concatInSlices } from '../../capture/concat.js';
import { ApiError } from '../../errors.js';
import type { EventsStore } from '../../store/events/store.js';
import type { CaptureJournal } from '../../store/journal/capture-journal.js';
import type { CapturedEvent } from '../destinations/enqueue.js';
import { overloaded } from './group-commit.js';
import {
  COUNTED,
  decodeEntry,
  encodeEntry,
  entryOf,
  eventKeys,
  type JournalEntry,
  TABLES,
} from './journal-entry.js';
import type { IngestSink } from './sink.js';

export interface JournalSinkOptions {
  /** The most rows one engine insert holds. */
  maxRows: number;
  /** How long the first waiting row may wait for more before they are inserted. */
  maxDelayMs: number;
  /**
   * The same wait while nobody on this node reads (no read in the last `READ_RECENT_MS`): no
   * reader waits for those rows, and the engine pays a fixed cost per insert, so larger inserts
   * leave more of the machine to capture. Never below `maxDelayMs`; default `maxDelayMs`.
   */
  idleDelayMs?: number;
  /** Refuse new work (503) while more rows than this are in the journal, not yet inserted. */
  maxPendingRows: number;
  /** The longest a query waits for acknowledged rows to be inserted before it fails (503). */
  waitMs: number;
  /** Pause after a failed insert, doubled per failure up to `retryMaxMs`. */
  retryMs?: number;
  retryMaxMs?: number;
  /** Told of each failed insert (the rows stay in the journal and are tried again). */
  onError?: (error: unknown, attempt: number) => void;
  /** Told, before they are inserted, how many rows the journal holds from before this open. */
  onReplay?: (rows: number) => void;
  /**
   * Told of the projects whose acknowledged rows just reached the engine: other nodes, which do not
   * wait for this node's journal, can read them from now on (event watermarks, docs/query-api.md).
   */
  onInserted?: (teamIds: number[]) => void;
  /**
   * Post-write hook (realtime destinations' matching): given each record's encoded `events` rows
   * once they are in the engine and before the checkpoint moves past them, so what it does for an
   * acknowledged event survives a kill -9 (it runs again for a batch replayed: at least once). A
   * failure is retried with the batch.
   */
  /** `teamIds[i]`: the project of every row of `eventParts[i]`, when the record says (not in a replay). */
  afterInsert?: (
    eventParts: Buffer[],
    teamIds?: ReadonlyArray<number | undefined>,
    captured?: ReadonlyArray<ReadonlyArray<CapturedEvent> | undefined>,
  ) => Promise<void>;
  /**
   * Projects whose rows go to `afterInsert` as soon as they are durable in the journal, without
   * waiting for the insert (those with realtime destinations: delivery need not wait for the
   * engine). The checkpoint still moves past them only once that call has succeeded; a failed or
   * unfinished one is made again with the insert. Asked once per request, so cheap.
   */
  matchEarly?: (teamId: number) => boolean;
}

interface Queued {
  start: number;
  end: number;
  entry: JournalEntry;
  /** Arrival (ms), for the batching delay. */
  at: number;
  /** The project of the request (unknown for records replayed at open). */
  teamId?: number;
  /** `afterInsert` called early (`matchEarly`): settles when it has run; `ok` once it succeeded. */
  early?: { settled: Promise<void>; ok: boolean };
  /** Capture's events of the record, kept only until the early call has them (`WriteSet.captured`). */
  captured?: ReadonlyArray<CapturedEvent> | undefined;
}

interface Appending {
  entry: JournalEntry;
  teamId: number;
  captured?: ReadonlyArray<CapturedEvent> | undefined;
  resolve(): void;
  reject(e: unknown): void;
}

/**
 * What one append (one write and one fdatasync) holds beyond each project's first waiting request.
 * A request waits for the append in progress and then for its own, so appends are kept to about
 * this size: otherwise one project's flood of 10 000-event requests (~4.6 MB of rows each) put
 * all of its waiting requests into each append, and another project's one-event request waited for
 * tens of MB to be written and synced (docs/benchmarks-history.md, "Capture floods").
 */
export const GROUP_BYTES = 8 * 1024 * 1024;

const EVENTS_PART = TABLES.findIndex(([part]) => part === 'events');

const bytesOf = (entry: JournalEntry) => entry.parts.reduce((n, part) => n + part.length, 0);

/**
 * The next append's requests: projects in turn (each project's first waiting request, then each
 * one's second, ...), in arrival order within a project, until `GROUP_BYTES` are taken; every
 * project's first request always goes. Everything, when it all fits.
 */
export function takeGroup<T extends { entry: JournalEntry; teamId: number }>(waiting: T[]): T[] {
  let bytes = 0;
  for (const w of waiting) bytes += bytesOf(w.entry);
  if (bytes <= GROUP_BYTES) return waiting;
  const lines = new Map<number, T[]>();
  for (const w of waiting) {
    const line = lines.get(w.teamId);
    if (line) line.push(w);
    else lines.set(w.teamId, [w]);
  }
  const group: T[] = [];
  bytes = 0;
  for (let round = 0; ; round++) {
    let more = false;
    for (const line of lines.values()) {
      const w = line[round];
      if (!w) continue;
      if (round > 0 && bytes >= GROUP_BYTES) return group;
      more = true;
      group.push(w);
      bytes += bytesOf(w.entry);
    }
    if (!more) return group;
  }
}

interface Waiter {
  target: number;
  resolve(): void;
  reject(error: unknown): void;
  timer: NodeJS.Timeout;
}

export const ingestionBehind = (waitMs: number) =>
  new ApiError(
    503,
    'server_error',
    'ingestion_behind',
    `Events this node acknowledged are not yet in the analytics store after ${waitMs} ms; retry shortly.`,
    null,
    { 'Retry-After': '5' },
  );

/** The writer's key for turns of the event loop (capture/turns.ts), beside the projects'. */
export const INSERT_TURN = 'engine insert';

/** A read within this long makes the writer use its short delay (`maxDelayMs`). */
export const READ_RECENT_MS = 10_000;

/** The next query the writer sends for one team's uuids (a parameter list, not SQL text). */
const UUIDS_PER_QUERY = 10_000;

export type JournalSink = IngestSink & {
  /**
   * Resolves once every row acknowledged before the call (for `teamId`, when given: every row of
   * that project) is in the engine; undefined when it already is (the usual case: no promise, no
   * wait).
   */
  barrier(signal?: AbortSignal, teamId?: number): Promise<void> | undefined;
  /** Rows of the journal's records (from the checkpoint on) found and inserted at open. */
  replayedRows: number;
};

/**
 * Capture's write path with a journal (docs/capture.md): a request's rows are appended to the
 * node-local journal, grouped with every request that arrived while the previous fsync ran (one
 * write and one fdatasync per group), and the request is answered once they are durable there. A
 * single background writer inserts from memory into the engine, as many rows per insert as have
 * waited (up to `maxRows`, or once the oldest has waited `maxDelayMs`, `idleDelayMs` while this
 * node has no readers), so inserts are large
 * whatever the number of clients: an insert into `events` costs the engine about 25 ms whatever
 * its size (docs/benchmarks-history.md, "Issue 22").
 *
 * After each insert a checkpoint records how far the journal is in the engine; segments wholly
 * before it are deleted. At open, records past the checkpoint are inserted before anything else
 * (the caller opens it before serving): the batch that was being inserted when the process died
 * may be partly in, so `events` rows whose uuid the engine already has are dropped first (the
 * `sessions` view would count them again), and tables a partial checkpoint names are skipped.
 */
export async function openJournalSink(
  journal: CaptureJournal,
  events: EventsStore,
  options: JournalSinkOptions,
): Promise<JournalSink> {
  const retryMs = options.retryMs ?? 100;
  const retryMaxMs = options.retryMaxMs ?? 5_000;
  const queue: Queued[] = [];
  let queuedRows = 0;
  /** Rows accepted (appending or appended) and not yet inserted. */
  let pendingRows = 0;
  /** Just past the last acknowledged record, and the last inserted one. */
  let durable = journal.head();
  let inserted = journal.checkpoint().inserted;
  /**
   * Per project, just past its last acknowledged record (entries at or before `inserted` are
   * dropped): a project's reads wait only for its own rows, so one project's capture load never
   * delays another's queries (isolation, docs/isolation.md).
   */
  const teamDurable = new Map<number, number>();
  /** A batch the last process left half inserted: it is taken again with the same end. */
  let resume = journal.checkpoint().partial;
  let waiters: Waiter[] = [];
  let inserting = false;
  let timer: NodeJS.Timeout | undefined;
  let closing = false;
  let idle: { promise: Promise<void>; resolve(): void; reject(e: unknown): void } | undefined;
  /** Inserting records found at open: any of them may already be in. */
  let replaying = true;
  /** When a read last asked for this node's rows (`barrier`). */
  let lastRead = Number.NEGATIVE_INFINITY;
  const idleDelayMs = Math.max(options.maxDelayMs, options.idleDelayMs ?? options.maxDelayMs);
  const delayMs = (now: number) => (now - lastRead < READ_RECENT_MS ? options.maxDelayMs : idleDelayMs);

  // --- early matching (`matchEarly`): one call at a time, taking every record that waited ---
  let earlyWaiting: Array<{ q: Queued; done(): void }> = [];
  let earlyRunning = false;
  function matchEarlyNext(): void {
    const afterInsert = options.afterInsert;
    if (earlyRunning || earlyWaiting.length === 0 || !afterInsert) return;
    earlyRunning = true;
    const taken = earlyWaiting;
    earlyWaiting = [];
    const captured = taken.map(({ q }) => q.captured);
    // Held no longer than this call: the records wait for their insert without them.
    for (const { q } of taken) q.captured = undefined;
    afterInsert(
      taken.map(({ q }) => q.entry.parts[EVENTS_PART] as Buffer),
      taken.map(({ q }) => q.teamId),
      captured,
    )
      .then(
        () => {
          for (const { q } of taken) if (q.early) q.early.ok = true;
        },
        // Left to the insert, which calls it again for these records.
        (error: unknown) => options.onError?.(error, 0),
      )
      .finally(() => {
        for (const t of taken) t.done();
        earlyRunning = false;
        matchEarlyNext();
      });
  }
  function queueEarly(q: Queued): void {
    let done!: () => void;
    q.early = { settled: new Promise<void>((r) => (done = r)), ok: false };
    earlyWaiting.push({ q, done });
  }

  function settleIdle(): void {
    if (queue.length > 0 || inserting || appending) return;
    idle?.resolve();
    idle = undefined;
  }

  // --- appending: one write + fdatasync per group of requests ---
  let appending = false;
  let waiting: Appending[] = [];

  function appendNext(): void {
    if (appending || waiting.length === 0) return;
    appending = true;
    const group = takeGroup(waiting);
    if (group.length === waiting.length) waiting = [];
    else {
      const taken = new Set(group);
      waiting = waiting.filter((w) => !taken.has(w));
    }
    const start = journal.head();
    journal.append(group.map((w) => encodeEntry(w.entry))).then(
      (ends) => {
        const now = performance.now();
        let from = start;
        group.forEach((w, i) => {
          const end = ends[i] as number;
          const q: Queued = { start: from, end, entry: w.entry, at: now, teamId: w.teamId };
          if (options.matchEarly?.(w.teamId)) {
            q.captured = w.captured;
            queueEarly(q);
          }
          queue.push(q);
          queuedRows += w.entry.rows;
          teamDurable.set(w.teamId, end);
          from = end;
        });
        // Before anyone is answered: a query that starts after an answer waits for these rows.
        durable = journal.head();
        appending = false;
        matchEarlyNext();
        wake();
        for (const w of group) w.resolve();
        appendNext();
      },
      (error: unknown) => {
        appending = false;
        for (const w of group) {
          pendingRows -= w.entry.rows;
          w.reject(error);
        }
        settleIdle();
        appendNext();
      },
    );
  }

  // --- inserting: one batch at a time ---
  function wake(): void {
    if (inserting || queue.length === 0) return;
    const first = queue[0] as Queued;
    const now = performance.now();
    const waited = now - first.at;
    const delay = delayMs(now);
    if (closing || waiters.length > 0 || queuedRows >= options.maxRows || waited >= delay) {
      if (timer) clearTimeout(timer);
      timer = undefined;
      void insertNext();
    } else if (!timer) {
      timer = setTimeout(
        () => {
          timer = undefined;
          wake();
        },
        Math.max(0, delay - waited),
      );
    }
  }

  /** Drops encoded `events` lines whose (team, uuid) the engine already holds. */
  async function dropInserted(body: Buffer): Promise<Buffer> {
    const keys = eventKeys(body);
    const byTeam = new Map<number, string[]>();
    for (const k of keys) {
      const list = byTeam.get(k.team) ?? [];
      list.push(k.uuid);
      byTeam.set(k.team, list);
    }
    const present = new Set<string>();
    // Compared as strings, exactly as `eventLine` wrote them. (This once said a bound Array(UUID)
    // matched nothing on chDB; test/store/events-schema.test.ts shows that it does match.)
    for (const [team, uuids] of byTeam) {
      for (let i = 0; i < uuids.length; i += UUIDS_PER_QUERY) {
        const rows = await events.query<{ uuid: string }>(
          `SELECT DISTINCT toString(uuid) AS uuid FROM ${events.table('events')}
           WHERE team_id = {team:Int64} AND toString(uuid) IN {uuids:Array(String)}`,
          { params: { team, uuids: uuids.slice(i, i + UUIDS_PER_QUERY) }, teamId: team, unfenced: true },
        );
        for (const r of rows) present.add(`${team}/${r.uuid}`);
      }
    }
    if (present.size === 0) return body;
    const kept = keys
      .filter((k) => !present.has(`${k.team}/${k.uuid}`))
      .map((k) => body.subarray(k.start, k.end));
    return Buffer.concat(kept);
  }

  /**
   * Inserts one batch, table by table. `suspect`: part of it may already be in (a replay, or an
   * insert that failed after the engine took some of it). Tables that count rows twice are noted in
   * a partial checkpoint when more of them follow, so a crash between them does not repeat one.
   */
  async function insertBatch(batch: Queued[], done: Set<string>, suspect: boolean): Promise<void> {
    const start = (batch[0] as Queued).start;
    const end = (batch.at(-1) as Queued).end;
    const bodies = await Promise.all(
      TABLES.map(([, table], i) =>
        done.has(table)
          ? Buffer.alloc(0)
          : // A turn of its own (turns.ts): a capture flood does not hold the insert back.
            concatInSlices(
              batch.map((q) => q.entry.parts[i] as Buffer),
              undefined,
              INSERT_TURN,
            ),
      ),
    );
    for (let i = 0; i < TABLES.length; i++) {
      const table = (TABLES[i] as readonly [string, string])[1];
      let body = bodies[i] as Buffer;
      if (body.length === 0) continue;
      if (table === 'events' && suspect) body = await dropInserted(body);
      if (body.length > 0) await events.insertEncoded(table, body);
      if (!COUNTED.has(table)) continue;
      done.add(table);
      const more = TABLES.slice(i + 1).some(
        ([, t], j) => COUNTED.has(t) && (bodies[i + 1 + j] as Buffer).length > 0,
      );
      if (more) await journal.saveCheckpoint({ inserted: start, partial: { end, done: [...done] } }, false);
    }
    if (options.afterInsert) {
      // Records matched early are done once that call succeeded; the others are matched here.
      await Promise.all(batch.map((q) => q.early?.settled));
      const left = batch.filter((q) => !q.early?.ok);
      if (left.length > 0)
        await options.afterInsert(
          left.map((q) => q.entry.parts[EVENTS_PART] as Buffer),
          left.map((q) => q.teamId),
        );
    }
    await journal.saveCheckpoint({ inserted: end }, true);
  }

  async function insertNext(): Promise<void> {
    inserting = true;
    // The batch: what waits, up to `maxRows` (whole records); a resumed batch keeps its old end.
    const batch: Queued[] = [];
    let rows = 0;
    const resumed = resume && queue[0]?.start === inserted ? resume : undefined;
    resume = undefined;
    for (const q of queue) {
      if (resumed ? q.end > resumed.end : batch.length > 0 && rows + q.entry.rows > options.maxRows) break;
      batch.push(q);
      rows += q.entry.rows;
    }
    const done = new Set(resumed?.done ?? []);
    let suspect = replaying;
    for (let attempt = 1; ; attempt++) {
      try {
        await insertBatch(batch, done, suspect);
        if (options.onInserted) {
          const teams = new Set<number>();
          for (const q of batch) if (q.teamId !== undefined) teams.add(q.teamId);
          if (teams.size > 0) options.onInserted([...teams]);
        }
        break;
      } catch (error) {
        options.onError?.(error, attempt);
        // The engine may have taken part of what failed.
        suspect = true;
        if (closing && attempt >= 3) {
          // Left in the journal for the next start.
          inserting = false;
          idle?.reject(error);
          idle = undefined;
          return;
        }
        await new Promise((r) => setTimeout(r, Math.min(retryMaxMs, retryMs * 2 ** (attempt - 1))));
      }
    }
    queue.splice(0, batch.length);
    queuedRows -= rows;
    pendingRows -= rows;
    inserted = (batch.at(-1) as Queued).end;
    for (const [team, end] of teamDurable) if (end <= inserted) teamDurable.delete(team);
    await journal.release(inserted).catch((error: unknown) => options.onError?.(error, 0));
    const still: Waiter[] = [];
    for (const w of waiters) {
      if (w.target <= inserted) {
        clearTimeout(w.timer);
        w.resolve();
      } else still.push(w);
    }
    waiters = still;
    inserting = false;
    settleIdle();
    wake();
  }

  /** Resolves once nothing is queued or being inserted (the writer works without delay meanwhile). */
  function drain(): Promise<void> {
    if (queue.length === 0 && !inserting && !appending) return Promise.resolve();
    if (!idle) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      idle = { promise, resolve, reject };
    }
    wake();
    return idle.promise;
  }

  // Replay: records past the checkpoint go in before the caller serves anything.
  const records = await journal.readFrom(inserted);
  for (const r of records) {
    const entry = decodeEntry(r.payload);
    queue.push({ start: r.start, end: r.end, entry, at: 0 });
    queuedRows += entry.rows;
    pendingRows += entry.rows;
  }
  const replayedRows = queuedRows;
  if (records.length > 0) {
    options.onReplay?.(replayedRows);
    closing = true; // no delay
    await drain();
    closing = false;
  }
  replaying = false;

  return {
    replayedRows,
    add(set, rows, teamId) {
      if (closing) return Promise.reject(overloaded());
      if (pendingRows + rows > options.maxPendingRows && pendingRows > 0) return Promise.reject(overloaded());
      pendingRows += rows;
      const entry = entryOf(set, rows);
      const captured = set.captured;
      const done = new Promise<void>((resolve, reject) =>
        waiting.push({ entry, teamId, captured, resolve, reject }),
      );
      appendNext();
      return done;
    },
    pendingRows: () => pendingRows,
    barrier(signal, teamId) {
      const now = performance.now();
      const idle = delayMs(now) !== options.maxDelayMs;
      lastRead = now;
      // A reader is here: rows already waiting on the idle delay go by the short one from now.
      if (idle && timer) {
        clearTimeout(timer);
        timer = undefined;
        wake();
      }
      // Replayed records have no project: until they are in, every read waits for everything.
      const target = teamId === undefined || replaying ? durable : (teamDurable.get(teamId) ?? 0);
      if (inserted >= target) return undefined;
      return new Promise<void>((resolve, reject) => {
        const waiter: Waiter = {
          target,
          resolve,
          reject,
          timer: setTimeout(() => {
            waiters = waiters.filter((w) => w !== waiter);
            reject(ingestionBehind(options.waitMs));
          }, options.waitMs),
        };
        waiters.push(waiter);
        signal?.addEventListener(
          'abort',
          () => {
            clearTimeout(waiter.timer);
            waiters = waiters.filter((w) => w !== waiter);
            reject(signal.reason ?? new Error('The query was aborted'));
          },
          { once: true },
        );
        // A reader waits: insert now, without the batching delay.
        wake();
      });
    },
    async close() {
      closing = true;
      // Requests already appending are answered; then everything goes into the engine.
      try {
        await drain();
      } finally {
        for (const w of waiters) {
          clearTimeout(w.timer);
          w.reject(ingestionBehind(options.waitMs));
        }
        waiters = [];
        await journal.close();
      }
    },
  };
}
