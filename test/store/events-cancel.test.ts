import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventsStore, openEventsStore } from '../../src/store/events/store.js';

const HEAVY = 'SELECT sum(cityHash64(number)) AS s FROM numbers(100000000000)';
const ONE_THREAD = { max_threads: 1 };

async function until<T>(check: () => Promise<T | null | false>, timeoutMs = 5_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('events store: marked queries and cancellation (chDB)', () => {
  let events: EventsStore;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'burrow-cancel-'));
    events = await openEventsStore({ dataDir, database: 'burrow_cancel' });
  });
  afterAll(async () => {
    await events?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists a marked query with its progress and stops it with cancel(marker)', async () => {
    const pending = events.query(HEAVY, { marker: 'burrow_7_abc', settings: ONE_THREAD }).catch((e) => e);
    const [process] = await until(async () => {
      const running = await events.running('burrow_7_abc');
      return running.length > 0 && running[0]!.rows_read > 0 ? running : null;
    });
    expect(process).toMatchObject({ marker: 'burrow_7_abc', total_rows_approx: 100_000_000_000 });
    expect(process!.bytes_read).toBeGreaterThan(0);
    expect(await events.running('burrow_7_other')).toEqual([]);
    expect(await events.cancel('burrow_7_other')).toBe(0);
    expect(await events.cancel('burrow_7_abc')).toBe(1);
    const error = await pending;
    expect(error).toBeInstanceOf(Error);
    expect(String(error.message)).toContain('cancelled');
    // chDB keeps a killed query listed until its session runs the next statement.
    await events.query('SELECT 1');
    expect(await events.running('burrow_7_abc')).toEqual([]);
  });

  it('aborting the signal of a marked query kills the engine work, not only the promise', async () => {
    const controller = new AbortController();
    const pending = events
      .query(HEAVY, { marker: 'burrow_7_signal', signal: controller.signal, settings: ONE_THREAD })
      .catch((e) => e);
    await until(async () => (await events.running('burrow_7_signal')).length > 0);
    const before = (await events.running('burrow_7_signal'))[0]!.rows_read;
    controller.abort(new Error('client went away'));
    expect((await pending).message).toBe('client went away');
    await until(async () => (await events.running('burrow_7_signal')).length === 0);
    expect(before).toBeGreaterThan(0);
    expect((await events.query<{ one: number }>('SELECT 1 AS one'))[0]!.one).toBe(1);
  });

  it('queryRows carries the marker as well', async () => {
    const controller = new AbortController();
    const pending = events
      .queryRows(HEAVY, { marker: 'burrow_7_rows', signal: controller.signal, settings: ONE_THREAD })
      .catch((e) => e);
    await until(async () => (await events.running('burrow_7_rows')).length > 0);
    controller.abort(new Error('stop'));
    await pending;
    await until(async () => (await events.running('burrow_7_rows')).length === 0);
  });

  it('a marker does not stick to the statements after it (chDB settings are per session)', async () => {
    await events.query('SELECT 1', { marker: 'burrow_7_first' });
    const pending = events.query(HEAVY, { marker: 'burrow_7_second', settings: ONE_THREAD }).catch((e) => e);
    await until(async () => (await events.running('burrow_7_second')).length > 0);
    expect(await events.running('burrow_7_first')).toEqual([]);
    expect(await events.cancel('burrow_7_first')).toBe(0);
    await events.cancel('burrow_7_second');
    await pending;
    await events.query('SELECT 1');
    const unmarked = await events.query<{ c: string }>("SELECT getSetting('log_comment') AS c");
    expect(unmarked[0]!.c).toBe('');
  });

  it('refuses markers that are not safe to inline, and an already aborted signal runs nothing', async () => {
    await expect(events.query('SELECT 1', { marker: "x' OR 1=1 --" })).rejects.toThrow(
      /invalid query marker/,
    );
    await expect(events.cancel('a b')).rejects.toThrow(/invalid query marker/);
    const controller = new AbortController();
    controller.abort(new Error('already gone'));
    await expect(
      events.query(HEAVY, { marker: 'burrow_7_never', signal: controller.signal }),
    ).rejects.toThrow('already gone');
    expect(await events.running('burrow_7_never')).toEqual([]);
  });
});
