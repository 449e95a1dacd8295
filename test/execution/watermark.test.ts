import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryWatermarks, redisWatermarks } from '../../src/execution/watermark.js';
import { type App, buildApp } from '../../src/server/app.js';
import { type Harness, startHarness } from '../helpers/harness.js';

/**
 * Event watermarks: a cached result over a range reaching the present is recalculated once newer
 * events were acknowledged for its project, on this node and (with Redis) on every other node.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const trends = (dateRange: Record<string, string>) => ({
  kind: 'TrendsQuery',
  series: [{ kind: 'EventsNode', event: 'watermark-probe', math: 'total' }],
  interval: 'day',
  dateRange,
});

interface Answer {
  results: { count: number }[];
  is_cached: boolean;
  last_refresh: string;
  cache_target_age: string | null;
}

describe('event watermarks', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  const capture = async (app: App, n: number) => {
    const res = await app.inject({
      method: 'POST',
      url: '/batch/',
      payload: {
        api_key: h.boot.project_api_key,
        batch: Array.from({ length: n }, (_, i) => ({ event: 'watermark-probe', distinct_id: `wm-${i}` })),
      },
    });
    expect(res.statusCode).toBe(200);
  };
  const ask = async (app: App, query: object, refresh = 'blocking') => {
    const res = await app.inject({
      method: 'POST',
      url: `/api/environments/${h.boot.project_id}/query/`,
      headers: { authorization: `Bearer ${h.key}` },
      payload: { query, refresh },
    });
    expect(res.statusCode).toBe(200);
    return res.json() as Answer;
  };

  /**
   * With Redis the journal's insert bumps the mark again (for other nodes), so a calculation that
   * waited for that insert is redone once; after that, with nothing new, the cache serves.
   */
  const settled = async (app: App, query: object) => {
    let answer = await ask(app, query);
    for (let i = 0; i < 3 && !answer.is_cached; i++) answer = await ask(app, query);
    return answer;
  };

  it('recalculates a range reaching the present once new events are acknowledged', async () => {
    const query = trends({ date_from: '-7d' });
    await capture(h.app, 2);
    const first = await ask(h.app, query);
    expect(first.results[0]?.count).toBe(2);
    // Within PostHog's 6 h day threshold, and nothing new: served from cache.
    expect((await settled(h.app, query)).is_cached).toBe(true);

    await capture(h.app, 3);
    // force_cache still answers the old result, but says it is already stale.
    const cachedOnly = await ask(h.app, query, 'force_cache');
    expect(cachedOnly.is_cached).toBe(true);
    expect(cachedOnly.results[0]?.count).toBe(2);
    expect(Date.parse(cachedOnly.cache_target_age as string)).toBeLessThanOrEqual(Date.now());
    // blocking honours staleness: the new events are counted at once.
    const second = await ask(h.app, query);
    expect(second.is_cached).toBe(false);
    expect(second.results[0]?.count).toBe(5);
    const third = await settled(h.app, query);
    expect(third.is_cached).toBe(true);
    expect(Date.parse(third.cache_target_age as string)).toBeGreaterThan(Date.now() + 3600_000);
  }, 60_000);

  it('leaves results over a closed past range alone', async () => {
    const query = trends({ date_from: '-30d', date_to: '-20d' });
    const first = await ask(h.app, query);
    expect(first.results[0]?.count).toBe(0);
    await capture(h.app, 1);
    const again = await ask(h.app, query);
    expect(again.is_cached).toBe(true);
    expect(again.last_refresh).toBe(first.last_refresh);
  }, 60_000);

  it('leaves other projects alone', async () => {
    const other = await h.owner('watermark other');
    const query = { kind: 'HogQLQuery', query: 'SELECT count() FROM events' };
    const url = `/api/environments/${other.projectId}/query/`;
    const ask2 = async () =>
      (
        await h.app.inject({
          method: 'POST',
          url,
          headers: { authorization: `Bearer ${other.key}` },
          payload: { query, refresh: 'blocking' },
        })
      ).json() as Answer;
    await ask2();
    await capture(h.app, 1);
    expect((await ask2()).is_cached).toBe(true);
  }, 60_000);
});

describe('memory watermarks', () => {
  it('only ever move forward', async () => {
    const marks = memoryWatermarks();
    expect(await marks.latest(1)).toBeNull();
    marks.bump(1, new Date(2000));
    marks.bump(1, new Date(1000));
    expect((await marks.latest(1))?.getTime()).toBe(2000);
    expect(await marks.latest(2)).toBeNull();
  });
});

const redisUrl = process.env.REDIS_URL;

describe.skipIf(!redisUrl)('redis watermarks', () => {
  const prefix = `burrow-watermark-test-${process.pid}-${Date.now()}:`;
  let a: Redis;
  let b: Redis;
  beforeAll(async () => {
    a = new Redis(redisUrl as string);
    b = new Redis(redisUrl as string);
  });
  afterAll(async () => {
    await a.del(`${prefix}event_watermarks`);
    a.disconnect();
    b.disconnect();
  });

  it('are seen by another node, throttled, and never move back', async () => {
    const nodeA = redisWatermarks(a, prefix, { writeMs: 200 });
    const nodeB = redisWatermarks(b, prefix, { writeMs: 200 });
    nodeA.bump(7, new Date(5000));
    await sleep(50);
    expect((await nodeB.latest(7))?.getTime()).toBe(5000);
    // Within the write window: this node sees it at once, the other after the trailing write.
    nodeA.bump(7, new Date(6000));
    expect((await nodeA.latest(7))?.getTime()).toBe(6000);
    expect((await nodeB.latest(7))?.getTime()).toBe(5000);
    await sleep(300);
    expect((await nodeB.latest(7))?.getTime()).toBe(6000);
    // A node whose bump is older never lowers the shared mark.
    nodeB.bump(7, new Date(5500));
    await sleep(50);
    expect((await nodeA.latest(7))?.getTime()).toBe(6000);
    await Promise.all([nodeA.close(), nodeB.close()]);
  });
});

describe.skipIf(!redisUrl)('event watermarks across two nodes sharing Redis', () => {
  let h: Harness;
  let nodeB: App;
  const journalB = mkdtempSync(join(tmpdir(), 'burrow-watermark-b-'));
  beforeAll(async () => {
    h = await startHarness();
    // A second API node on the same stores and Redis (its own capture journal).
    nodeB = await buildApp({
      config: { ...h.config, captureJournalDir: journalB },
      meta: h.stores.meta,
      events: h.stores.events,
      bus: h.stores.bus,
    });
    await nodeB.ready();
  }, 60_000);
  afterAll(async () => {
    await nodeB?.close();
    await h?.close();
    rmSync(journalB, { recursive: true, force: true });
  });

  const ask = async (app: App, refresh = 'blocking') => {
    const res = await app.inject({
      method: 'POST',
      url: `/api/environments/${h.boot.project_id}/query/`,
      headers: { authorization: `Bearer ${h.key}` },
      payload: { query: trends({ date_from: '-7d' }), refresh },
    });
    expect(res.statusCode).toBe(200);
    return res.json() as Answer;
  };

  it('a capture on node A makes node B recalculate', async () => {
    const first = await ask(nodeB);
    expect(first.results[0]?.count).toBe(0);
    expect((await ask(nodeB)).is_cached).toBe(true);
    await sleep(150);

    const res = await h.app.inject({
      method: 'POST',
      url: '/batch/',
      payload: {
        api_key: h.boot.project_api_key,
        batch: [{ event: 'watermark-probe', distinct_id: 'two-nodes' }],
      },
    });
    expect(res.statusCode).toBe(200);
    // Node A's rows reach the engine after its journal's insert delay; its watermark is bumped
    // again then, so node B keeps recalculating until it counts them.
    let answer = await ask(nodeB);
    for (let i = 0; i < 50 && answer.results[0]?.count !== 1; i++) {
      await sleep(100);
      answer = await ask(nodeB);
    }
    expect(answer.is_cached).toBe(false);
    expect(answer.results[0]?.count).toBe(1);
    let after = await ask(nodeB);
    for (let i = 0; i < 3 && !after.is_cached; i++) after = await ask(nodeB);
    expect(after.is_cached).toBe(true);
  }, 60_000);
});
