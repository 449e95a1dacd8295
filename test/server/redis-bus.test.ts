import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { memoryBus, redisBus } from '../../src/store/shared/bus.js';
import { type Harness, startHarness } from '../helpers/harness.js';

const REDIS_URL = process.env.REDIS_URL;

async function eventually(check: () => Promise<boolean>, timeoutMs = 2000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

/** Two API nodes on one metadata store: does a revocation on one reach the other's key cache? */
describe('key revocation across nodes', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ AUTH_CACHE_TTL_MS: '600000' });
  });
  afterAll(async () => {
    await h?.close();
  });

  let nodes = 0;
  const ownJournal = () => ({
    ...h.config,
    captureJournalDir: join(h.config.dataDir, `journal-node-${nodes++}`),
  });

  async function secondNode(bus: Awaited<ReturnType<typeof redisBus>> | ReturnType<typeof memoryBus>) {
    // Another node has its own capture journal (one directory per node).
    const app = await buildApp({ config: ownJournal(), meta: h.stores.meta, events: h.stores.events, bus });
    await app.ready();
    return app;
  }

  it.skipIf(!REDIS_URL)('with Redis, a key revoked on node A stops working on node B at once', async () => {
    const prefix = `burrow-bus-test-${process.pid}:`;
    const busA = await redisBus(REDIS_URL as string, prefix);
    const busB = await redisBus(REDIS_URL as string, prefix);
    const a = await buildApp({
      config: ownJournal(),
      meta: h.stores.meta,
      events: h.stores.events,
      bus: busA,
    });
    const b = await secondNode(busB);
    const { key } = await h.user({ organizationId: h.boot.organization_id });
    const me = (app: typeof a) =>
      app.inject({ url: '/api/users/@me/', headers: { authorization: `Bearer ${key}` } });
    expect((await me(b)).statusCode).toBe(200); // cached on B now
    const ready = await b.inject({ url: '/_readyz' });
    expect(ready.json().checks.redis).toBe('ok');

    const del = await a.inject({
      method: 'DELETE',
      url: '/api/personal_api_keys/@current/',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(del.statusCode).toBe(204);
    expect(await eventually(async () => (await me(b)).statusCode === 401)).toBe(true);
    await Promise.all([a.close(), b.close()]);
    await Promise.all([busA.close(), busB.close()]);
  });

  it('without a shared bus, the other node keeps its cached key until the TTL (documented)', async () => {
    const b = await secondNode(memoryBus());
    const { key } = await h.user({ organizationId: h.boot.organization_id });
    const me = () => b.inject({ url: '/api/users/@me/', headers: { authorization: `Bearer ${key}` } });
    expect((await me()).statusCode).toBe(200);
    const del = await h.request('DELETE', '/api/personal_api_keys/@current/', { key });
    expect(del.statusCode).toBe(204);
    expect((await h.request('GET', '/api/users/@me/', { key })).statusCode).toBe(401);
    expect((await me()).statusCode).toBe(200);
    await b.close();
  });
});
