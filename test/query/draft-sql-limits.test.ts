import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

// Per-user throttling and the per-team name cache of draft_sql, on an injected clock.
let h: Harness;
let clock = new Date();
const tick = (ms: number) => {
  clock = new Date(clock.getTime() + ms);
};

const url = (params: Record<string, string>) =>
  `/api/environments/${h.boot.project_id}/query/draft_sql/?${new URLSearchParams(params)}`;
const draft = (prompt: string | undefined, key?: string) =>
  h.request('GET', url(prompt === undefined ? {} : { prompt }), key ? { key } : {});

async function capture(batch: object[]) {
  const res = await h.request('POST', '/batch/', {
    key: null,
    body: { api_key: h.boot.project_api_key, batch },
  });
  expect(res.statusCode).toBe(200);
}

beforeAll(async () => {
  h = await startHarness({ DRAFT_SQL_BURST_PER_MINUTE: '3', DRAFT_SQL_PER_DAY: '5' }, { now: () => clock });
  await capture([{ event: '$pageview', distinct_id: 'u1', timestamp: clock.toISOString() }]);
}, 60_000);
afterAll(() => h?.close());

describe(`draft_sql throttling (${backend})`, () => {
  it('allows a burst per minute and a sustained number per day, per user, with Retry-After', async () => {
    for (let i = 0; i < 3; i++) expect((await draft('top pages')).statusCode).toBe(200);
    const burst = await draft('top pages');
    expect(burst.statusCode).toBe(429);
    const wait = Number(burst.headers['retry-after']);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    expect(burst.json()).toEqual({
      type: 'throttled_error',
      code: 'throttled',
      detail: `Request was throttled. Expected available in ${wait} second${wait === 1 ? '' : 's'}.`,
      attr: null,
    });
    // Throttles run before validation, as in DRF: a bad request is still a 429.
    expect((await draft(undefined)).statusCode).toBe(429);

    const other = await h.user({ organizationId: h.boot.organization_id, key: { scopes: ['query:read'] } });
    expect((await draft('top pages', other.key)).statusCode).toBe(200);

    tick(61_000);
    expect((await draft('top pages')).statusCode).toBe(200);
    expect((await draft(undefined)).statusCode).toBe(400);
    const daily = await draft('top pages');
    expect(daily.statusCode).toBe(429);
    const dayWait = Number(daily.headers['retry-after']);
    expect(dayWait).toBeGreaterThan(86_400 - 62);
    expect(dayWait).toBeLessThanOrEqual(86_400 - 61);

    tick(86_400_000);
    expect((await draft('top pages')).statusCode).toBe(200);
  });
});

describe(`draft_sql name cache (${backend})`, () => {
  it('reads event names once per minute per project, not on every call', async () => {
    const { key } = await h.user({ organizationId: h.boot.organization_id, key: { scopes: ['query:read'] } });
    const first = await draft('daily checkout started', key);
    expect(first.statusCode).toBe(400);
    expect(first.json().code).toBe('unclear');

    await capture([{ event: 'checkout started', distinct_id: 'u1', timestamp: clock.toISOString() }]);
    // Still the cached names: no scan per call.
    const cached = await draft('daily checkout started', key);
    expect(cached.json().code, cached.body).toBe('unclear');

    tick(61_000);
    const later = await draft('daily checkout started', key);
    expect(later.statusCode, later.body).toBe(200);
    expect(later.json().sql).toContain("event = 'checkout started'");
  });
});
