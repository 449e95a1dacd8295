import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEntry, entryOf } from '../../src/domain/ingest/journal-entry.js';
import { openJournalSink } from '../../src/domain/ingest/journal-sink.js';
import { chTime, eventLine, NO_GROUPS, type WriteSet } from '../../src/domain/ingest/rows.js';
import { type EventsStore, openEventsStore } from '../../src/store/events/store.js';
import { openCaptureJournal } from '../../src/store/journal/capture-journal.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { otherProject } from '../helpers/query-lists.js';

const TEAM = 7;
const NOW = chTime(new Date().toISOString());

/** A write set of `n` encoded events (one session per set), with a recording row if asked. */
function writeSet(n: number, session: string, snapshot = false): { set: WriteSet; uuids: string[] } {
  const uuids = Array.from({ length: n }, () => randomUUID());
  const lines = uuids.map((uuid, i) =>
    eventLine(
      TEAM,
      {
        uuid,
        event: '$pageview',
        distinctId: `d-${i % 3}`,
        properties: { $session_id: session, $current_url: `https://x.test/${i}` },
        timestamp: new Date().toISOString(),
      },
      {
        personId: '00000000-0000-0000-0000-000000000001',
        personProperties: {},
        personCreatedAt: '2026-01-01 00:00:00.000',
        groups: NO_GROUPS,
      },
      NOW,
    ),
  );
  const snapshots = snapshot
    ? [{ team_id: TEAM, session_id: session, window_id: 'w', timestamp: NOW, data: '{"type":2}' }]
    : [];
  return {
    set: {
      events: Buffer.from(lines.join('')),
      eventCount: n,
      person: [],
      person_distinct_id2: [],
      groups: [],
      replay: [],
      snapshots,
    },
    uuids,
  };
}

const rowsOf = (set: WriteSet) => set.eventCount + set.snapshots.length;

describe('capture journal: replay, checkpoint, retries (chDB)', () => {
  const root = mkdtempSync(join(tmpdir(), 'burrow-journal-'));
  let store: EventsStore;
  beforeAll(async () => {
    store = await openEventsStore({ dataDir: root, database: 'journal_test' });
  });
  afterAll(async () => {
    await store.close();
    rmSync(root, { recursive: true, force: true });
  });

  let n = 0;
  const dir = () => join(root, `journal-${n++}`);
  const options = { maxRows: 20_000, maxDelayMs: 60_000, maxPendingRows: 100_000, waitMs: 10_000 };

  async function perUuid(uuids: string[]): Promise<Map<string, number>> {
    const rows = await store.query<{ uuid: string; n: number }>(
      `SELECT toString(uuid) AS uuid, count() AS n FROM ${store.table('events')}
       WHERE team_id = ${TEAM} AND toString(uuid) IN {uuids:Array(String)} GROUP BY uuid`,
      { params: { uuids } },
    );
    return new Map(rows.map((r) => [r.uuid, Number(r.n)]));
  }
  async function sessionEvents(session: string): Promise<number> {
    const [row] = await store.query<{ n: number }>(
      `SELECT sum(event_count) AS n FROM ${store.table('sessions')} WHERE team_id = ${TEAM} AND session_id = {s:String}`,
      { params: { s: session } },
    );
    return Number(row?.n ?? 0);
  }
  async function snapshotRows(session: string): Promise<number> {
    const [row] = await store.query<{ n: number }>(
      `SELECT count() AS n FROM ${store.table('session_replay_snapshots')} WHERE team_id = ${TEAM} AND session_id = {s:String}`,
      { params: { s: session } },
    );
    return Number(row?.n ?? 0);
  }

  it('a batch half inserted when the process died is completed once: no uuid twice, sessions counted once', async () => {
    const path = dir();
    const session = `s-${randomUUID()}`;
    const sets = [writeSet(40, session, true), writeSet(30, session), writeSet(20, session)];
    // The "crashed" process: three acknowledged records in one batch, whose insert was under
    // way: the engine holds the first record's events (an insert the engine finished, whose
    // checkpoint was never written), and no table is recorded done.
    const crashed = await openCaptureJournal(path);
    await crashed.append(sets.map(({ set }) => encodeEntry(entryOf(set, rowsOf(set)))));
    await store.insertEncoded('events', (sets[0] as { set: WriteSet }).set.events);
    await crashed.saveCheckpoint({ inserted: 0, partial: { end: crashed.head(), done: [] } }, true);
    await crashed.close();
    expect(readdirSync(path).some((f) => f.endsWith('.seg'))).toBe(true);

    let replayed = 0;
    const journal = await openCaptureJournal(path);
    const sink = await openJournalSink(journal, store, { ...options, onReplay: (rows) => (replayed = rows) });
    expect(replayed).toBe(91);
    const uuids = sets.flatMap((s) => s.uuids);
    const counts = await perUuid(uuids);
    expect(uuids.filter((u) => counts.get(u) !== 1)).toEqual([]);
    expect(await sessionEvents(session)).toBe(90);
    expect(await snapshotRows(session)).toBe(1);
    expect(journal.checkpoint()).toEqual({ inserted: journal.head() });
    await sink.close();
    // Everything inserted: no segment is left.
    expect(readdirSync(path).filter((f) => f.endsWith('.seg'))).toEqual([]);
  });

  it('a partial checkpoint naming a table keeps it from being inserted again', async () => {
    const path = dir();
    const session = `s-${randomUUID()}`;
    const first = writeSet(10, session, true);
    const crashed = await openCaptureJournal(path);
    await crashed.append([encodeEntry(entryOf(first.set, rowsOf(first.set)))]);
    await store.insertEncoded('events', first.set.events);
    await store.insert('session_replay_snapshots', first.set.snapshots);
    await crashed.saveCheckpoint(
      { inserted: 0, partial: { end: crashed.head(), done: ['events', 'session_replay_snapshots'] } },
      true,
    );
    await crashed.close();
    const sink = await openJournalSink(await openCaptureJournal(path), store, options);
    expect(await snapshotRows(session)).toBe(1);
    expect(await sessionEvents(session)).toBe(10);
    await sink.close();
  });

  it('a record cut short by the crash is dropped; those before it are inserted', async () => {
    const path = dir();
    const session = `s-${randomUUID()}`;
    const whole = writeSet(5, session);
    const crashed = await openCaptureJournal(path);
    await crashed.append([encodeEntry(entryOf(whole.set, 5))]);
    await crashed.close();
    // Half a record at the end, as a write the crash interrupted leaves it.
    const [segment] = readdirSync(path).filter((f) => f.endsWith('.seg'));
    const { appendFileSync } = await import('node:fs');
    const torn = Buffer.concat(encodeEntry(entryOf(writeSet(5, session).set, 5)));
    appendFileSync(join(path, segment as string), torn.subarray(0, torn.length - 3));
    const journal = await openCaptureJournal(path);
    const sink = await openJournalSink(journal, store, options);
    expect(await sessionEvents(session)).toBe(5);
    // Appends continue after the last whole record.
    const next = writeSet(4, session);
    await sink.add(next.set, 4, TEAM);
    await sink.barrier()?.then(() => {});
    expect(await sessionEvents(session)).toBe(9);
    await sink.close();
  });

  it('checkpoints each insert and deletes inserted segments; a barrier inserts at once', async () => {
    const path = dir();
    const journal = await openCaptureJournal(path, { segmentBytes: 2048 });
    const sink = await openJournalSink(journal, store, options);
    const session = `s-${randomUUID()}`;
    const all: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { set, uuids } = writeSet(10, session);
      all.push(...uuids);
      await sink.add(set, 10, TEAM);
    }
    // Nothing inserted yet (the delay is a minute): several segments, pending rows counted.
    expect(sink.pendingRows()).toBe(50);
    expect(readdirSync(path).filter((f) => f.endsWith('.seg')).length).toBeGreaterThan(2);
    const started = performance.now();
    await sink.barrier();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(sink.pendingRows()).toBe(0);
    expect(sink.barrier()).toBeUndefined();
    const saved = JSON.parse(readFileSync(join(path, 'checkpoint.json'), 'utf8'));
    expect(saved).toEqual({ inserted: journal.head() });
    // Only the segment being appended to is left.
    expect(readdirSync(path).filter((f) => f.endsWith('.seg')).length).toBe(1);
    const counts = await perUuid(all);
    expect(all.filter((u) => counts.get(u) !== 1)).toEqual([]);
    await sink.close();
  });

  it('while nobody reads the writer waits its idle delay; a read switches it to the short one', async () => {
    const sink = await openJournalSink(await openCaptureJournal(dir()), store, {
      ...options,
      maxDelayMs: 50,
      idleDelayMs: 60_000,
    });
    const session = `s-${randomUUID()}`;
    const first = writeSet(5, session);
    await sink.add(first.set, 5, TEAM);
    // No read yet: the rows wait for the idle delay (a minute here), not the short one.
    await new Promise((r) => setTimeout(r, 500));
    expect(sink.pendingRows()).toBe(5);
    expect((await perUuid(first.uuids)).size).toBe(0);
    // A read of another project waits for nothing, but says this node has readers: the rows
    // already waiting go by the short delay from now on, and so do later ones.
    expect(sink.barrier(undefined, TEAM + 1)).toBeUndefined();
    const inserted = async (uuids: string[]) => {
      const deadline = performance.now() + 10_000;
      while ((await perUuid(uuids)).size < uuids.length) {
        if (performance.now() > deadline) throw new Error('not inserted within 10 s');
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    await inserted(first.uuids);
    const second = writeSet(5, session);
    await sink.add(second.set, 5, TEAM);
    await inserted(second.uuids);
    // The writer's own count follows its checkpoint, a moment after the rows are readable.
    await sink.barrier();
    expect(sink.pendingRows()).toBe(0);
    await sink.close();
  });

  it("matchEarly: a project's rows reach afterInsert once durable, before the insert, and once", async () => {
    const calls: Array<{ uuids: string[]; inEngine: number }> = [];
    let failNext = true;
    const sink = await openJournalSink(await openCaptureJournal(dir()), store, {
      ...options,
      maxDelayMs: 60_000,
      matchEarly: (team) => team === TEAM,
      afterInsert: async (parts) => {
        const uuids = parts.flatMap((p) =>
          p
            .toString('utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l).uuid as string),
        );
        calls.push({ uuids, inEngine: (await perUuid(uuids)).size });
        // The first early call fails: its records are matched again with the insert.
        if (failNext) {
          failNext = false;
          throw new Error('matching failed');
        }
      },
    });
    const first = writeSet(3, `s-${randomUUID()}`);
    await sink.add(first.set, 3, TEAM);
    const second = writeSet(2, `s-${randomUUID()}`);
    await sink.add(second.set, 2, TEAM);
    const deadline = performance.now() + 10_000;
    while (calls.length < 2 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    // Both went to afterInsert while the insert still waits (its delay is a minute).
    expect(calls.map((c) => c.inEngine)).toEqual([0, 0]);
    expect(sink.pendingRows()).toBe(5);
    await sink.barrier();
    // The insert matched again only the records whose early call failed.
    expect(calls).toHaveLength(3);
    expect(calls[2]!.uuids.sort()).toEqual([...first.uuids].sort());
    expect(calls[1]!.uuids.sort()).toEqual([...second.uuids].sort());
    await sink.close();
  });

  it("a project's reads wait for its own rows only; reads naming no project wait for all", async () => {
    const sink = await openJournalSink(await openCaptureJournal(dir()), store, options);
    const session = `s-${randomUUID()}`;
    await sink.add(writeSet(10, session).set, 10, TEAM);
    // Another project has nothing pending: its queries do not wait (the delay is a minute).
    expect(sink.barrier(undefined, TEAM + 1)).toBeUndefined();
    expect(sink.pendingRows()).toBe(10);
    const own = sink.barrier(undefined, TEAM);
    expect(own).toBeInstanceOf(Promise);
    await own;
    expect(await sessionEvents(session)).toBe(10);
    await sink.add(writeSet(5, session).set, 5, TEAM);
    const all = sink.barrier();
    expect(all).toBeInstanceOf(Promise);
    await all;
    expect(await sessionEvents(session)).toBe(15);
    expect(sink.barrier(undefined, TEAM)).toBeUndefined();
    await sink.close();
  });

  it('past the pending limit new rows are refused with a 503; close inserts what is pending', async () => {
    const path = dir();
    const sink = await openJournalSink(await openCaptureJournal(path), store, {
      ...options,
      maxPendingRows: 25,
    });
    const session = `s-${randomUUID()}`;
    await sink.add(writeSet(20, session).set, 20, TEAM);
    const refused = await sink.add(writeSet(10, session).set, 10, TEAM).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 503, code: 'overloaded', headers: { 'Retry-After': '1' } });
    await sink.close();
    expect(await sessionEvents(session)).toBe(20);
    expect(readdirSync(path).filter((f) => f.endsWith('.seg'))).toEqual([]);
  });

  it('a failing engine: inserts are retried, the journal kept, and a waiting query gets a 503 in time', async () => {
    const path = dir();
    let failures = 0;
    let failing = true;
    const flaky: EventsStore = {
      ...store,
      insertEncoded: async (table, body) => {
        if (failing) {
          failures++;
          throw new Error('engine down');
        }
        return store.insertEncoded(table, body);
      },
    };
    const errors: number[] = [];
    const sink = await openJournalSink(await openCaptureJournal(path), flaky, {
      ...options,
      waitMs: 300,
      retryMs: 20,
      retryMaxMs: 50,
      onError: (_, attempt) => errors.push(attempt),
    });
    const session = `s-${randomUUID()}`;
    const { set, uuids } = writeSet(10, session);
    await sink.add(set, 10, TEAM);
    const started = performance.now();
    const behind = await sink.barrier()?.catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(behind).toMatchObject({ status: 503, code: 'ingestion_behind' });
    expect(failures).toBeGreaterThan(1);
    expect(sink.pendingRows()).toBe(10);
    failing = false;
    await sink.barrier();
    const counts = await perUuid(uuids);
    expect(uuids.filter((u) => counts.get(u) !== 1)).toEqual([]);
    expect(errors[0]).toBe(1);
    await sink.close();
  });

  it('one journal directory is one node: a second open in this process is refused', async () => {
    const path = dir();
    const journal = await openCaptureJournal(path);
    await expect(openCaptureJournal(path)).rejects.toThrow(/already open/);
    await journal.close();
    expect(existsSync(join(path, 'lock'))).toBe(false);
  });
});

describe(`capture journal through the API (${backend})`, () => {
  let h: Harness;
  beforeAll(async () => {
    // A batching delay far longer than any test: only the barrier gets rows in quickly.
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '10000', INGEST_MAX_PENDING_ROWS: '150' });
  });
  afterAll(async () => {
    await h?.close();
  });

  const capture = (n: number, event = 'journaled') =>
    h.request('POST', '/batch/', {
      key: null,
      body: {
        api_key: h.boot.project_api_key,
        batch: Array.from({ length: n }, (_, i) => ({ event, distinct_id: `u-${i % 4}`, properties: { i } })),
      },
    });
  const hogql = (sql: string) =>
    h.request('POST', `/api/projects/${h.boot.project_id}/query/`, {
      body: { query: { kind: 'HogQLQuery', query: sql }, refresh: 'force_blocking' },
    });

  it('a query right after capture sees the captured events', async () => {
    expect((await capture(3, 'seen-at-once')).statusCode).toBe(200);
    const started = performance.now();
    const res = await hogql("SELECT count() FROM events WHERE event = 'seen-at-once'");
    expect(res.statusCode).toBe(200);
    expect(res.json().results).toEqual([[3]]);
    expect(performance.now() - started).toBeLessThan(5_000);
    // The journal lives under the data directory.
    expect(existsSync(join(h.config.dataDir, 'capture-journal', 'checkpoint.json'))).toBe(true);
  });

  it("another project's query does not wait for this project's pending rows", async () => {
    const other = await otherProject(h);
    expect((await capture(2, 'pending-for-a')).statusCode).toBe(200);
    const inEngine = async () =>
      (
        await h.stores.events.query<{ n: string }>(
          `SELECT count() AS n FROM ${h.stores.events.table('events')} WHERE event = 'pending-for-a'`,
          { unfenced: true },
        )
      )[0]?.n;
    const res = await h.request('POST', `/api/projects/${other.projectId}/query/`, {
      key: other.key,
      body: { query: { kind: 'HogQLQuery', query: 'SELECT count() FROM events' }, refresh: 'force_blocking' },
    });
    expect(res.statusCode).toBe(200);
    // The other project's answer came without inserting A's rows (the batching delay is 10 s).
    expect(Number(await inEngine())).toBe(0);
    const own = await hogql("SELECT count() FROM events WHERE event = 'pending-for-a'");
    expect(own.json().results).toEqual([[2]]);
  });

  it('past INGEST_MAX_PENDING_ROWS capture answers 503 with Retry-After; room comes back once inserted', async () => {
    expect((await capture(100)).statusCode).toBe(200);
    const refused = await capture(100);
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toMatchObject({ type: 'server_error', code: 'overloaded', attr: null });
    // A read waits for the pending rows (and so makes room).
    expect((await hogql("SELECT count() FROM events WHERE event = 'journaled'")).json().results).toEqual([
      [100],
    ]);
    expect((await capture(100)).statusCode).toBe(200);
  });
});

describe(`CAPTURE_JOURNAL=off (${backend})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ CAPTURE_JOURNAL: 'off', INGEST_BATCH_DELAY_MS: '2' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers after the insert, and keeps no journal', async () => {
    const res = await h.request('POST', '/batch/', {
      key: null,
      body: { api_key: h.boot.project_api_key, batch: [{ event: 'unjournaled', distinct_id: 'x' }] },
    });
    expect(res.statusCode).toBe(200);
    const [row] = await h.stores.events.query<{ n: number }>(
      `SELECT count() AS n FROM ${h.stores.events.table('events')} WHERE event = 'unjournaled'`,
    );
    expect(Number(row?.n)).toBe(1);
    expect(existsSync(join(h.config.dataDir, 'capture-journal'))).toBe(false);
  });
});
