import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CacheEntry, memoryCache } from '../../src/execution/cache.js';
import { queryCacheKey } from '../../src/execution/cache-key.js';
import { redisCache } from '../../src/execution/redis-cache.js';
import { redisRunLock } from '../../src/execution/run-lock.js';
import { createSingleFlight } from '../../src/execution/single-flight.js';
import { connectRedis, dropRedisPrefix } from '../helpers/redis-keys.js';

const REDIS_URL = process.env.REDIS_URL;
const PREFIX = `burrow-qcache-${process.pid}:`;

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((res) => {
    resolve = res;
  });
  return { promise, resolve };
}
const entry = (result: unknown, runId = 'r'): CacheEntry => ({
  result,
  lastRefresh: '2024-01-01T00:00:00.000Z',
  runId,
});

describe('cache key', () => {
  const base = { teamId: 1, timezone: 'UTC', query: { kind: 'HogQLQuery', query: 'select 1' } };

  it('ignores key order at every level and the tags of query nodes', () => {
    const a = queryCacheKey({
      ...base,
      query: { kind: 'DataTableNode', source: { kind: 'EventsQuery', select: ['*'], where: ['a', 'b'] } },
      modifiers: { debug: false, timings: true },
    });
    const b = queryCacheKey({
      timezone: 'UTC',
      modifiers: { timings: true, debug: false },
      teamId: 1,
      query: {
        source: { where: ['a', 'b'], select: ['*'], kind: 'EventsQuery', tags: { scene: 'x' } },
        kind: 'DataTableNode',
      },
    });
    expect(a).toBe(b);
    expect(a).toMatch(/^cache_[0-9a-f]{40}$/);
  });

  it('changes with the query, array order, team, timezone, modifiers and extra material', () => {
    const key = queryCacheKey(base);
    const variants = [
      queryCacheKey({ ...base, query: { kind: 'HogQLQuery', query: 'select 2' } }),
      queryCacheKey({ ...base, teamId: 2 }),
      queryCacheKey({ ...base, timezone: 'Europe/Paris' }),
      queryCacheKey({ ...base, modifiers: { personsOnEventsMode: 'disabled' } }),
      queryCacheKey({ ...base, extra: { runner: 'TrendsQueryRunner' } }),
      queryCacheKey({ ...base, query: { kind: 'EventsQuery', select: ['b', 'a'] } }),
    ];
    expect(new Set([key, ...variants]).size).toBe(variants.length + 1);
    expect(queryCacheKey({ ...base, query: { kind: 'EventsQuery', select: ['a', 'b'] } })).not.toBe(
      variants[5],
    );
    // A `tags` member that is data (not on a query node) is kept.
    expect(queryCacheKey({ ...base, query: { kind: 'X', values: { tags: 1 } } })).not.toBe(
      queryCacheKey({ ...base, query: { kind: 'X', values: {} } }),
    );
  });
});

describe('memory cache', () => {
  it('is bounded by bytes and evicts the least recently used', async () => {
    const cache = memoryCache(4_000);
    const big = 'x'.repeat(900);
    for (const key of ['a', 'b', 'c', 'd']) await cache.set(key, entry(big));
    expect(await cache.get('a')).not.toBeNull(); // a is now the most recent
    await cache.set('e', entry(big)); // over budget: b, the least recent, goes
    expect(await cache.get('b')).toBeNull();
    for (const key of ['a', 'c', 'd', 'e']) expect(await cache.get(key)).not.toBeNull();
  });

  it('does not keep a result larger than the whole budget, and copies on read', async () => {
    const cache = memoryCache(1_000);
    await cache.set('huge', entry('y'.repeat(2_000)));
    expect(await cache.get('huge')).toBeNull();
    await cache.set('k', entry({ rows: [1, 2] }));
    const first = (await cache.get<{ rows: number[] }>('k'))!;
    first.result.rows.push(3);
    expect((await cache.get<{ rows: number[] }>('k'))!.result.rows).toEqual([1, 2]);
  });

  it('drops entries after three days on the injected clock', async () => {
    let now = new Date('2024-01-01T00:00:00Z');
    const cache = memoryCache(10_000, () => now);
    await cache.set('k', entry(1));
    now = new Date('2024-01-03T23:00:00Z');
    expect(await cache.get('k')).not.toBeNull();
    now = new Date('2024-01-04T00:00:01Z');
    expect(await cache.get('k')).toBeNull();
  });
});

describe.skipIf(!REDIS_URL)('redis cache', () => {
  let a: Redis;
  let b: Redis;
  beforeAll(async () => {
    a = await connectRedis(REDIS_URL!);
    b = await connectRedis(REDIS_URL!);
  });
  afterAll(async () => {
    await Promise.all([a?.quit(), b?.quit()]);
    await dropRedisPrefix(REDIS_URL!, PREFIX);
  });

  it('is shared by nodes using the same prefix, and only them', async () => {
    const nodeA = redisCache(a, PREFIX);
    const nodeB = redisCache(b, PREFIX);
    const other = redisCache(b, `${PREFIX}other:`);
    await nodeA.set('k', entry({ n: 1 }));
    expect(await nodeB.get('k')).toEqual(entry({ n: 1 }));
    expect(await other.get('k')).toBeNull();
    expect(await b.pttl(`${PREFIX}query_cache:k`)).toBeGreaterThan(2 * 24 * 3600_000);
    await nodeB.delete('k');
    expect(await nodeA.get('k')).toBeNull();
  });
});

describe('single flight on one node', () => {
  it('runs identical work once and gives every caller the result', async () => {
    const flight = createSingleFlight();
    const gate = deferred();
    let calls = 0;
    const compute = async () => {
      calls++;
      await gate.promise;
      return { value: 42 };
    };
    const callers = [1, 2, 3].map(() => flight.run('k', { compute }));
    const other = flight.run('other', { compute: async () => ({ value: 7 }) });
    expect(flight.has('k')).toBe(true);
    gate.resolve();
    const results = await Promise.all(callers);
    expect(results.every((r) => r === results[0])).toBe(true);
    expect(results[0]).toEqual({ value: 42 });
    expect(await other).toEqual({ value: 7 });
    expect(calls).toBe(1);
    expect(flight.has('k')).toBe(false);
    await flight.run('k', { compute });
    expect(calls).toBe(2);
  });

  it('shares failures too, and the next call runs again', async () => {
    const flight = createSingleFlight();
    let calls = 0;
    const compute = async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 10));
      throw new Error('engine failed');
    };
    const results = await Promise.allSettled([flight.run('k', { compute }), flight.run('k', { compute })]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
    await expect(flight.run('k', { compute })).rejects.toThrow('engine failed');
    expect(calls).toBe(2);
  });

  it('a caller that leaves does not stop the others; the work stops when the last one leaves', async () => {
    const flight = createSingleFlight();
    const gate = deferred();
    let shared: AbortSignal | undefined;
    const compute = async (_runId: string, signal: AbortSignal) => {
      shared = signal;
      await gate.promise;
      return 'done';
    };
    const one = new AbortController();
    const two = new AbortController();
    const first = flight.run('k', { compute, signal: one.signal });
    const second = flight.run('k', { compute, signal: two.signal });
    one.abort(new Error('first left'));
    await expect(first).rejects.toThrow('first left');
    expect(shared?.aborted).toBe(false);
    gate.resolve();
    expect(await second).toBe('done');

    const gate2 = deferred();
    const three = new AbortController();
    const third = flight.run('k2', {
      compute: async (_r, signal) => {
        shared = signal;
        await gate2.promise;
        return 'x';
      },
      signal: three.signal,
    });
    three.abort(new Error('last left'));
    await expect(third).rejects.toThrow('last left');
    expect(shared?.aborted).toBe(true);
    gate2.resolve();
  });
});

describe.skipIf(!REDIS_URL)('single flight across nodes (Redis lease)', () => {
  let a: Redis;
  let b: Redis;
  beforeAll(async () => {
    a = await connectRedis(REDIS_URL!);
    b = await connectRedis(REDIS_URL!);
  });
  afterAll(async () => {
    await Promise.all([a?.quit(), b?.quit()]);
    await dropRedisPrefix(REDIS_URL!, PREFIX);
  });

  it('the second node waits for the first one and reads its result from the shared cache', async () => {
    const cacheA = redisCache(a, PREFIX);
    const cacheB = redisCache(b, PREFIX);
    const nodeA = createSingleFlight(redisRunLock(a, PREFIX));
    const nodeB = createSingleFlight(redisRunLock(b, PREFIX));
    const gate = deferred();
    let calls = 0;
    const first = nodeA.run('shared', {
      compute: async (runId) => {
        calls++;
        await gate.promise;
        const e = entry({ from: 'A' }, runId);
        await cacheA.set('shared', e);
        return e;
      },
    });
    await new Promise((r) => setTimeout(r, 50));
    const second = nodeB.run('shared', {
      compute: async (runId) => {
        calls++;
        return entry({ from: 'B' }, runId);
      },
      fromOtherRun: async (runId) => {
        const e = await cacheB.get('shared');
        return e && e.runId === runId ? e : null;
      },
    });
    await new Promise((r) => setTimeout(r, 150));
    gate.resolve();
    const [fromA, fromB] = await Promise.all([first, second]);
    expect(fromB).toEqual(fromA);
    expect(fromB.result).toEqual({ from: 'A' });
    expect(calls).toBe(1);
    expect(await a.exists(`${PREFIX}query_lock:shared`)).toBe(0);
  });

  it('when the first node fails, the waiting node calculates itself', async () => {
    const nodeA = createSingleFlight(redisRunLock(a, PREFIX));
    const nodeB = createSingleFlight(redisRunLock(b, PREFIX));
    const gate = deferred();
    const first = nodeA.run('failing', {
      compute: async () => {
        await gate.promise;
        throw new Error('A failed');
      },
    });
    await new Promise((r) => setTimeout(r, 50));
    const second = nodeB.run('failing', {
      compute: async (runId) => entry('B', runId),
      fromOtherRun: async () => null,
    });
    gate.resolve();
    await expect(first).rejects.toThrow('A failed');
    expect((await second).result).toBe('B');
  });

  it('a lease is only renewed or released by its holder', async () => {
    const lock = redisRunLock(a, PREFIX);
    expect(await lock.tryAcquire('lease', 'run-1', 5_000)).toBeNull();
    expect(await lock.tryAcquire('lease', 'run-2', 5_000)).toBe('run-1');
    await lock.release('lease', 'run-2');
    expect(await lock.holder('lease')).toBe('run-1');
    await lock.renew('lease', 'run-1', 60_000);
    expect(await a.pttl(`${PREFIX}query_lock:lease`)).toBeGreaterThan(50_000);
    await lock.release('lease', 'run-1');
    expect(await lock.holder('lease')).toBeNull();
  });
});
