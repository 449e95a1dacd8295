import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';

/**
 * A blocking query whose HTTP client goes away stops and gives its slot back: a browser leaving a
 * page (or a tile whose filter changed) must not leave the project's queue full for the next page.
 * Real HTTP on loopback, since `inject` has no socket to close.
 */
let h: Harness;
let base: string;
const SLOW = 'SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) = 7';

beforeAll(async () => {
  // Two queries queued or running per project: the third is a 429.
  h = await startHarness({ QUERY_TEAM_CONCURRENCY: '2' });
  base = await h.app.listen({ host: '127.0.0.1', port: 0 });
}, 60_000);
afterAll(() => h?.close());

/** A probe's status, its body read so that its connection goes back to the client's pool. */
const status = async (query: string) => {
  const res = await post(query);
  await res.arrayBuffer();
  return res.status;
};

const post = (query: string, signal?: AbortSignal) =>
  fetch(`${base}/api/projects/${h.boot.project_id}/query/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: { kind: 'HogQLQuery', query }, refresh: 'blocking' }),
    ...(signal ? { signal } : {}),
  });

describe('a blocking query whose client leaves', () => {
  it('frees its place in the project queue at once', async () => {
    const leaving = new AbortController();
    // Different SQL each: two calculations, not one shared flight. A slow query that lost its place to a probe (a 429) asks again: the probes take places too,
    // for a moment each, and the check below needs both slow ones running.
    const startSlow = (i: number): Promise<Response | Error> =>
      post(`${SLOW} + ${i}`, leaving.signal).then(
        async (r) => {
          if (r.status !== 429) return r;
          await r.arrayBuffer();
          return startSlow(i);
        },
        (e: Error) => e,
      );
    const slow = [0, 1].map(startSlow);
    // While both run, the project is at its bound: a third query is refused. A new query each time,
    // so that each is a calculation (a cache hit takes no place and is never refused).
    let probe = 100;
    try {
      await expect.poll(() => status(`SELECT ${probe++}`), { timeout: 10_000, interval: 50 }).toBe(429);
    } finally {
      // Even when the check fails: the scans would otherwise run on and hold the server's close.
      leaving.abort();
    }
    for (const s of await Promise.all(slow)) expect((s as Error).name).toBe('AbortError');
    // The server sees the sockets close and stops both: the queue is free again within moments
    // (before, both ran on for the full scan, and every query of the project got a 429).
    await expect.poll(() => status(`SELECT ${probe++}`), { timeout: 5_000, interval: 50 }).toBe(200);
    const body = (await (await post('SELECT 3')).json()) as { results: unknown[][] };
    expect(body.results).toEqual([[3]]);
  }, 30_000);
});
