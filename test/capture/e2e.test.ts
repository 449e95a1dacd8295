import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/** The unmodified posthog-node client against a real Burrow server on loopback. */
describe(`capture with posthog-node (${backend})`, () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await h?.close();
  });

  const events = () => h.stores.events.table('events');
  async function rows<T>(sql: string, params: Record<string, unknown> = {}) {
    return h.stores.events.query<T>(sql, { params: { team: h.boot.project_id, ...params } });
  }

  it('stores captured, identified, aliased and grouped events with one person per user', async () => {
    const client = new PostHog(h.boot.project_api_key, { host: base, flushAt: 5, flushInterval: 0 });
    client.capture({
      distinctId: 'anon-42',
      event: 'page viewed',
      properties: { $current_url: 'https://x.test/a' },
    });
    client.identify({
      distinctId: 'user-42',
      properties: { email: 'u42@example.com', $anon_distinct_id: 'anon-42' },
    });
    client.alias({ distinctId: 'user-42', alias: 'alias-42' });
    client.groupIdentify({ groupType: 'company', groupKey: 'acme', properties: { size: 10 } });
    client.capture({
      distinctId: 'user-42',
      event: 'paid',
      groups: { company: 'acme' },
      properties: { amount: 9 },
    });
    for (let i = 0; i < 30; i++)
      client.capture({ distinctId: `bulk-${i % 3}`, event: 'bulk', properties: { i } });
    await client.shutdown();

    const counts = await rows<{ event: string; n: number }>(
      `SELECT event, count() AS n FROM ${events()} WHERE team_id = {team:Int64} GROUP BY event ORDER BY event`,
    );
    expect(Object.fromEntries(counts.map((r) => [r.event, r.n]))).toMatchObject({
      'page viewed': 1,
      $identify: 1,
      $create_alias: 1,
      $groupidentify: 1,
      paid: 1,
      bulk: 30,
    });

    const paid = await rows<{
      person_id: string;
      person_properties: string;
      $group_0: string;
      properties: string;
    }>(
      `SELECT person_id, person_properties, $group_0, properties FROM ${events()} WHERE team_id = {team:Int64} AND event = 'paid'`,
    );
    expect(paid[0]?.$group_0).toBe('acme');
    expect(JSON.parse(paid[0]?.person_properties ?? '{}')).toMatchObject({ email: 'u42@example.com' });
    expect(JSON.parse(paid[0]?.properties ?? '{}')).toMatchObject({ amount: 9, $lib: 'posthog-node' });

    const firstView = await rows<{ person_id: string }>(
      `SELECT person_id FROM ${events()} WHERE team_id = {team:Int64} AND event = 'page viewed'`,
    );
    expect(firstView[0]?.person_id).toBe(paid[0]?.person_id);

    const ids = await rows<{ distinct_id: string; person_id: string }>(
      `SELECT distinct_id, argMax(person_id, version) AS person_id FROM ${h.stores.events.table('person_distinct_id2')}
       WHERE team_id = {team:Int64} AND distinct_id IN ('anon-42', 'user-42', 'alias-42') GROUP BY distinct_id`,
    );
    expect(ids).toHaveLength(3);
    expect(new Set(ids.map((r) => r.person_id))).toEqual(new Set([paid[0]?.person_id]));
  });

  it('answers an unknown project token with 401 in PostHog shape, and writes nothing', async () => {
    const res = await fetch(`${base}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: 'phc_nope',
        batch: [{ event: 'x', distinct_id: 'd', properties: {} }],
      }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ type: 'authentication_error', code: 'invalid_project_api_key' });
  });

  it('counts a retried event (same uuid) once', async () => {
    const body = JSON.stringify({
      api_key: h.boot.project_api_key,
      batch: [
        {
          event: 'retried',
          distinct_id: 'r1',
          uuid: '01890000-0000-7000-8000-000000000001',
          properties: { $session_id: 'retry-session' },
        },
      ],
    });
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${base}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(res.status).toBe(200);
    }
    const [row] = await rows<{ n: number }>(
      `SELECT count() AS n FROM ${events()} FINAL WHERE team_id = {team:Int64} AND event = 'retried'`,
    );
    expect(row?.n).toBe(1);
    // The retry never reached the insert, so the sessions view counted the event once too.
    const [session] = await rows<{ n: number }>(
      `SELECT sum(event_count) AS n FROM ${h.stores.events.table('sessions')}
       WHERE team_id = {team:Int64} AND session_id = 'retry-session'`,
    );
    expect(session?.n).toBe(1);
  });

  it('stores recordings sent to /s/ and summarises each session', async () => {
    const t0 = Date.parse('2026-11-20T10:00:00.000Z');
    const snapshot = (data: unknown[]) => ({
      event: '$snapshot',
      properties: {
        distinct_id: 'rec-user',
        $session_id: 'sess-1',
        $window_id: 'win-1',
        $snapshot_data: data,
      },
    });
    const batch = [
      snapshot([
        { type: 4, timestamp: t0, data: { href: 'https://app.test/start' } },
        { type: 2, timestamp: t0 + 10, data: {} },
        { type: 3, timestamp: t0 + 1000, data: { source: 2, type: 2 } },
        { type: 3, timestamp: t0 + 2000, data: { source: 5 } },
      ]),
      snapshot([
        { type: 3, timestamp: t0 + 3000, data: { source: 2, type: 2 } },
        { type: 6, timestamp: t0 + 3500, data: { plugin: 'rrweb/console@1', payload: { level: 'error' } } },
      ]),
    ];
    const res = await fetch(`${base}/s/?compression=none`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        batch.map((e) => ({ ...e, properties: { ...e.properties, token: h.boot.project_api_key } })),
      ),
    });
    expect(res.status).toBe(200);
    const [summary] = await rows<Record<string, unknown>>(
      `SELECT session_id, any(distinct_id) AS distinct_id, sum(click_count) AS clicks, sum(keypress_count) AS keys,
              sum(console_error_count) AS errors, sum(active_milliseconds) AS active, argMinMerge(first_url) AS first_url,
              min(min_first_timestamp) AS start
       FROM ${h.stores.events.table('session_replay_events')} WHERE team_id = {team:Int64} GROUP BY session_id`,
    );
    expect(summary).toMatchObject({
      session_id: 'sess-1',
      distinct_id: 'rec-user',
      clicks: 2,
      keys: 1,
      errors: 1,
      active: 1000, // per received batch: the gap between the two batches is not counted
      first_url: 'https://app.test/start',
      start: '2026-11-20 10:00:00.000000',
    });
    const snapshots = await rows<{ n: number }>(
      `SELECT count() AS n FROM ${h.stores.events.table('session_replay_snapshots')} WHERE team_id = {team:Int64}`,
    );
    expect(snapshots[0]?.n).toBe(2);
    const inEvents = await rows<{ n: number }>(
      `SELECT count() AS n FROM ${events()} WHERE team_id = {team:Int64} AND event = '$snapshot'`,
    );
    expect(inEvents[0]?.n).toBe(0);
  });

  it('serves posthog-js start-up config and CORS preflights', async () => {
    const config = await fetch(`${base}/array/${h.boot.project_api_key}/config`);
    expect(config.status).toBe(200);
    expect(await config.json()).toMatchObject({
      sessionRecording: false,
      supportedCompression: ['gzip', 'gzip-js'],
    });
    const flags = await fetch(`${base}/flags/?v=2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://site.test' },
      body: JSON.stringify({ token: h.boot.project_api_key, distinct_id: 'x' }),
    });
    expect(flags.status).toBe(200);
    expect(flags.headers.get('access-control-allow-origin')).toBe('https://site.test');
    expect(await flags.json()).toMatchObject({
      flags: {},
      errorsWhileComputingFlags: false,
    });
    const preflight = await fetch(`${base}/e/`, {
      method: 'OPTIONS',
      headers: { origin: 'https://site.test', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
  });
});
