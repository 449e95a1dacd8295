/**
 * Re-measures the chDB facts the events store's lanes are built on (docs/isolation.md):
 *  1. separate sessions on one path run statements in parallel;
 *  2. one session runs one statement at a time;
 *  3. the package serialises parameterised calls process-wide (and `SET param_*` avoids it);
 *  4. a failed statement's rows can reach the next statement on the same session;
 *  5. `os_thread_priority` (nice) on long statements keeps inserts on another session fast.
 * Run: `UV_THREADPOOL_SIZE=16 npx tsx bench/engine-facts.ts` (prints one JSON line per fact).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'chdb';

const dir = mkdtempSync(join(tmpdir(), 'burrow-facts-'));
const sessions = Array.from({ length: 3 }, () => new Session(dir));
const [a, b, c] = sessions as [Session, Session, Session];
/** ~1-2 s of CPU on one thread. */
const HEAVY = 'SELECT sum(cityHash64(number)) FROM numbers(600000000) SETTINGS max_threads = 1';

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return Math.round(performance.now() - t);
}

async function main() {
  const single = await timed(() => a.queryAsync(HEAVY));
  // 1. Two sessions at once: close to one statement's time if they run in parallel.
  const twoSessions = await timed(() => Promise.all([a.queryAsync(HEAVY), b.queryAsync(HEAVY)]));
  // 2. Two statements on one session at once: twice as long if the session runs one at a time.
  const oneSession = await timed(() => Promise.all([a.queryAsync(HEAVY), a.queryAsync(HEAVY)]));
  // Small statement on a free session while another session is busy.
  const heavy = a.queryAsync(HEAVY);
  await new Promise((r) => setTimeout(r, 50));
  const smallBesideHeavy = await timed(() => b.queryAsync('SELECT 1'));
  await heavy;
  const heavy2 = a.queryAsync(HEAVY);
  await new Promise((r) => setTimeout(r, 50));
  const smallSameSession = await timed(() => a.queryAsync('SELECT 1'));
  await heavy2;
  console.log(
    JSON.stringify({
      fact: 'parallel sessions / serial session',
      single,
      twoSessions,
      oneSession,
      smallBesideHeavy,
      smallSameSession,
    }),
  );

  // 3. A bound SELECT 1 on a free session while another session runs a bound heavy statement.
  const heavyBound = a.queryBindAsync(`${HEAVY.replace('600000000', '{n:UInt64}')}`, { n: 600000000 });
  await new Promise((r) => setTimeout(r, 50));
  const boundBesideBoundHeavy = await timed(() => b.queryBindAsync('SELECT {x:String}', { x: 'a' }));
  await heavyBound;
  // The same with `SET param_*` in one multi-statement call (no package chain).
  const heavySet = a.queryAsync(`SET param_n = '600000000'; ${HEAVY.replace('600000000', '{n:UInt64}')}`);
  await new Promise((r) => setTimeout(r, 50));
  let setParamValue = '';
  const setBesideSetHeavy = await timed(async () => {
    setParamValue = (
      await b.queryAsync(`SET param_x = 'it''s'; SELECT {x:String} AS x`, { format: 'JSONEachRow' })
    )
      .text()
      .trim();
  });
  await heavySet;
  // Do parameters set on one session leak into another session's statements?
  const leak = await c
    .queryAsync('SELECT {x:String}', { format: 'TSV' })
    .then((r) => `visible: ${r.text().trim()}`)
    .catch((e: Error) => `refused: ${e.message.slice(0, 60)}`);
  console.log(
    JSON.stringify({
      fact: 'parameterised calls',
      boundBesideBoundHeavy,
      setBesideSetHeavy,
      setParamValue,
      otherSessionSees: leak,
    }),
  );

  // 4. A statement that fails after producing rows, then a different statement on the same session.
  const failing =
    "SELECT number AS secret FROM numbers(100000) WHERE throwIf(number = 90000, 'boom') = 0 SETTINGS max_block_size = 1000";
  const tries = 20;
  const leaks = { sameSession: 0, otherSession: 0, afterDrain: 0 };
  for (let i = 0; i < tries; i++) {
    await a.queryAsync(failing, { format: 'JSONEachRow' }).catch(() => {});
    if ((await b.queryAsync("SELECT 'mine' AS x", { format: 'JSONEachRow' })).text().includes('secret'))
      leaks.otherSession++;
    if ((await a.queryAsync("SELECT 'mine' AS x", { format: 'JSONEachRow' })).text().includes('secret'))
      leaks.sameSession++;
    await a.queryAsync(failing, { format: 'JSONEachRow' }).catch(() => {});
    await a.queryAsync('SELECT 1').catch(() => {}); // the drain
    if ((await a.queryAsync("SELECT 'mine' AS x", { format: 'JSONEachRow' })).text().includes('secret'))
      leaks.afterDrain++;
  }
  console.log(JSON.stringify({ fact: 'failed statement rows reach the next statement', tries, ...leaks }));

  // 5. Inserts on a free session while two long statements run, with the long ones niced or not.
  await c.queryAsync('CREATE TABLE IF NOT EXISTS ins (k UInt64, v String) ENGINE = MergeTree ORDER BY k');
  const body = Buffer.from(
    Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ k: i, v: `value-${i}` })).join('\n'),
  );
  const insertMs = async () => {
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      times.push(await timed(() => c.insert({ table: 'ins', values: body, format: 'JSONEachRow' })));
    }
    return times.sort((x, y) => x - y)[5];
  };
  const idleInsert = await insertMs();
  const LONG = 'SELECT sum(cityHash64(number)) FROM numbers(100000000000)';
  const result: Record<string, number | undefined> = { idleInsert };
  for (const nice of [0, 19]) {
    const stop = new AbortController();
    const long = [a, b].map((s) =>
      s.queryAsync(`SET os_thread_priority = ${nice}, max_execution_time = 8; ${LONG}`).catch(() => {}),
    );
    await new Promise((r) => setTimeout(r, 300));
    result[`insertBesideLong_nice${nice}`] = await insertMs();
    stop.abort();
    await Promise.all(long);
  }
  console.log(JSON.stringify({ fact: 'median 20k-row insert (ms) beside two long statements', ...result }));
}

main()
  .catch((e) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const s of sessions) s.close();
    rmSync(dir, { recursive: true, force: true });
  });
