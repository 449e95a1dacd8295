import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaneName } from '../../src/store/events/lanes.js';
import { type EventsStore, openEventsStore } from '../../src/store/events/store.js';

// The store's lanes (docs/isolation.md) on chDB: 2 query sessions (1 per project), 1 export, 1 write.
let dataDir: string;
let store: EventsStore;
const QUERY_SESSIONS = 2;
const SESSIONS: Record<LaneName, number> = { query: QUERY_SESSIONS, export: 1, write: 1 };
/** 2 s of engine time without CPU: sleepEachRow over 4 rows. */
const SLOW = 'SELECT max(sleepEachRow(0.5)) AS n FROM numbers(4) SETTINGS max_block_size = 1';
/** Produces rows, then fails: on chDB its rows would come out of the session's next statement. */
const FAILING =
  "SELECT number AS secret FROM numbers(100000) WHERE throwIf(number = 90000, 'boom') = 0 SETTINGS max_block_size = 1000";
const elapsed = async <T>(work: Promise<T>) => {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'burrow-lanes-'));
  store = await openEventsStore({
    dataDir,
    database: 'burrow_lanes',
    limits: {
      queryConcurrency: QUERY_SESSIONS,
      queryTeamShare: 1,
      exportConcurrency: 1,
      memoryLimitBytes: 2 * 1024 ** 3,
      queryMaxThreads: 1,
    },
  });
  await store.command(
    `CREATE TABLE IF NOT EXISTS ${store.table('t')} (team_id Int64, v String) ENGINE = MergeTree ORDER BY team_id`,
  );
}, 60_000);

afterAll(async () => {
  await store?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('no row of a failed or cancelled statement reaches another statement', () => {
  it.each(['query', 'export', 'write'] as const)(
    'on the %s lane, after failures on every session',
    async (lane) => {
      const n = SESSIONS[lane];
      for (let round = 0; round < 3; round++) {
        // Fail on every session of the lane at once, then read on every session of it.
        const failed = await Promise.allSettled(
          Array.from({ length: n }, (_, i) => store.query(FAILING, { lane, teamId: 100 + i })),
        );
        expect(failed.every((r) => r.status === 'rejected')).toBe(true);
        const next = await Promise.all(
          Array.from({ length: n }, () =>
            store.query<{ x: string }>("SELECT 'mine' AS x", { lane, teamId: 200, params: {} }),
          ),
        );
        for (const rows of next) expect(rows).toEqual([{ x: 'mine' }]);
      }
    },
  );

  it.each(['query', 'export', 'write'] as const)(
    'on the %s lane, after a killed statement',
    async (lane) => {
      const n = SESSIONS[lane];
      for (let round = 0; round < 2; round++) {
        const controllers = Array.from({ length: n }, () => new AbortController());
        const running = controllers.map((c, i) =>
          store.query(
            'SELECT number AS secret, sleepEachRow(0.01) FROM numbers(100000) SETTINGS max_block_size = 10',
            { lane, teamId: 300 + i, marker: `lanes_kill_${lane}_${round}_${i}`, signal: c.signal },
          ),
        );
        // Let the statements start producing rows, then cancel them.
        await new Promise((r) => setTimeout(r, 400));
        for (const c of controllers) c.abort();
        const settled = await Promise.allSettled(running);
        expect(settled.every((r) => r.status === 'rejected')).toBe(true);
        const next = await Promise.all(
          Array.from({ length: n }, () =>
            store.query<{ x: string }>("SELECT 'mine' AS x", { lane, teamId: 400 }),
          ),
        );
        for (const rows of next) expect(rows).toEqual([{ x: 'mine' }]);
      }
    },
    60_000,
  );
});

describe('lanes never wait for each other', () => {
  it('an insert and a query of another project are answered while one project fills its share', async () => {
    // Project 1 queues four slow statements: with one session per project it holds one at a time.
    const heavy = Array.from({ length: 4 }, () => store.query(SLOW, { teamId: 1 }));
    await new Promise((r) => setTimeout(r, 100));
    const insert = await elapsed(store.insert('t', [{ team_id: 2, v: 'x' }]));
    const read = await elapsed(
      store.query<{ n: number }>(
        `SELECT count() AS n FROM ${store.table('t')} WHERE team_id = {team:Int64}`,
        {
          teamId: 2,
          params: { team: 2 },
        },
      ),
    );
    const exported = await elapsed(store.query('SELECT 1 AS one', { lane: 'export', teamId: 3 }));
    // The single lane made each of these wait for all four (8 s); a lane of their own answers at once.
    expect(insert.ms).toBeLessThan(1500);
    expect(read.ms).toBeLessThan(1500);
    expect(exported.ms).toBeLessThan(1500);
    expect(read.value).toEqual([{ n: 1 }]);
    await Promise.all(heavy);
  }, 60_000);

  it('a long batch export statement takes no query session and holds no insert', async () => {
    const exporting = [1, 2].map(() => store.query(SLOW, { lane: 'export', teamId: 5 }));
    await new Promise((r) => setTimeout(r, 100));
    // Both query sessions are free for two projects at once, and the insert goes straight in.
    const reads = await elapsed(
      Promise.all([6, 7].map((teamId) => store.query('SELECT 1 AS one', { teamId }))),
    );
    const insert = await elapsed(store.insert('t', [{ team_id: 6, v: 'y' }]));
    expect(reads.ms).toBeLessThan(1500);
    expect(insert.ms).toBeLessThan(1500);
    await Promise.all(exporting);
  }, 60_000);

  it('projects waiting for the query lane are served in turn', async () => {
    const order: string[] = [];
    const tag = (name: string) => (rows: unknown) => {
      order.push(name);
      return rows;
    };
    // Project 1 queues three, then project 2 one: project 2 must not wait for all of project 1's.
    const a = [1, 2, 3].map((i) => store.query(SLOW, { teamId: 1 }).then(tag(`a${i}`)));
    await new Promise((r) => setTimeout(r, 50));
    const b = store.query(SLOW, { teamId: 2 }).then(tag('b'));
    await Promise.all([...a, b]);
    expect(order.indexOf('b')).toBeLessThan(2);
  }, 60_000);
});

describe('query parameters', () => {
  const values = [
    "it's",
    'back\\slash',
    'tab\tnew\nline\rcr',
    "\\'; SELECT 1 --",
    '{not_a_param:String}',
    'ünïcødé 🦔',
    '',
    'x'.repeat(300_000),
  ];

  it('bind per statement on parallel sessions, with any text, without a process-wide queue', async () => {
    const results = await Promise.all(
      values.flatMap((v, i) =>
        [0, 1].map((t) =>
          store.query<{ v: string; a: string[]; n: number }>(
            'SELECT {v:String} AS v, {a:Array(String)} AS a, {n:Int64} AS n',
            { teamId: 10 + t, params: { v, a: [v, 'b'], n: i } },
          ),
        ),
      ),
    );
    results.forEach((rows, k) => {
      const i = Math.floor(k / 2);
      expect(rows).toEqual([{ v: values[i], a: [values[i], 'b'], n: i }]);
    });
    const table = await store.query<{ n: number }>(
      'SELECT count() AS n FROM {db:Identifier}.{t:Identifier}',
      {
        params: { db: store.database, t: 't' },
      },
    );
    expect(table[0]!.n).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('a bound statement is not held by another session’s long bound statement', async () => {
    const slow = store.query(`${SLOW.replace('numbers(4)', 'numbers({rows:UInt32})')}`, {
      teamId: 1,
      params: { rows: 4 },
    });
    await new Promise((r) => setTimeout(r, 100));
    const quick = await elapsed(store.query('SELECT {x:String} AS x', { teamId: 2, params: { x: 'quick' } }));
    expect(quick.value).toEqual([{ x: 'quick' }]);
    // chDB's bound calls (queryBindAsync) would have waited for the whole 2 s statement.
    expect(quick.ms).toBeLessThan(1000);
    await slow;
  }, 60_000);
});

describe('engine threads', () => {
  it('query and export statements run on at most QUERY_MAX_THREADS threads; inserts keep the default', async () => {
    const threads = async (lane: LaneName) =>
      Number(
        (await store.query<{ t: string }>("SELECT toString(getSetting('max_threads')) AS t", { lane }))[0]?.t,
      );
    // Every session of the lane, twice: the setting is part of every statement, not of one session.
    for (let i = 0; i < 2 * QUERY_SESSIONS; i++) expect(await threads('query')).toBe(1);
    expect(await threads('export')).toBe(1);
    expect(await threads('write')).toBeGreaterThanOrEqual(1);
  });
});

describe('engine memory', () => {
  it('a statement past its part of ENGINE_MEMORY_LIMIT fails alone; another project is unaffected', async () => {
    // 2 GiB over 4 sessions: 512 MiB per statement. Grouping 1e8 distinct keys needs several GiB.
    const hungry = store
      .query('SELECT count() AS n FROM (SELECT number FROM numbers(100000000) GROUP BY number)', {
        teamId: 1,
      })
      .then(
        () => null,
        (e: { type?: string }) => e,
      );
    const other = store.query<{ n: number }>('SELECT sum(number) AS n FROM numbers(1000000)', { teamId: 2 });
    const [error, rows] = await Promise.all([hungry, other]);
    expect(error).toMatchObject({ type: 'MEMORY_LIMIT_EXCEEDED' });
    expect(rows).toEqual([{ n: 499999500000 }]);
  }, 60_000);
});
