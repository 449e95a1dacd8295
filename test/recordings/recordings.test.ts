import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_FOUND } from '../helpers/bodies.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { type CraftedRecording, sendEvents, sendRecordings } from '../helpers/recordings.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

/**
 * Crafted recordings and events sent through capture, then read back through the recordings API
 * with each kind of filter. Every expectation names exactly which recordings match.
 */
describe(`session recordings (${backend})`, () => {
  let h: Harness;
  let base: string;
  const now = Date.now();
  const recordings: CraftedRecording[] = [
    // alice: long, busy, an error; bought something on the cart page.
    {
      sessionId: 'rec-a',
      distinctId: 'alice',
      start: now - 2 * HOUR,
      durationMs: 120_000,
      clicks: 5,
      keypresses: 2,
      console: ['error'],
      url: 'https://shop.test/cart',
    },
    // bob: short, a warning.
    {
      sessionId: 'rec-b',
      distinctId: 'bob',
      start: now - HOUR,
      durationMs: 20_000,
      clicks: 1,
      console: ['warn'],
      url: 'https://shop.test/',
    },
    // carol: an internal test account, five days ago (outside the default -3d).
    {
      sessionId: 'rec-c',
      distinctId: 'carol',
      start: now - 5 * 24 * HOUR,
      durationMs: 300_000,
      url: 'https://shop.test/admin',
    },
    // alice again, on mobile, with a log line.
    {
      sessionId: 'rec-d',
      distinctId: 'alice',
      start: now - 30 * MIN,
      durationMs: 5_000,
      console: ['log'],
      source: 'mobile',
      url: 'https://m.shop.test/',
    },
    // dave: no person at all.
    {
      sessionId: 'rec-e',
      distinctId: 'dave',
      start: now - 10 * MIN,
      durationMs: 45_000,
      clicks: 2,
      url: 'https://shop.test/help',
    },
  ];

  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2', PLAYLIST_COUNT_INTERVAL_MS: '0' });
    base = `/api/environments/${h.boot.project_id}/session_recordings/`;
    await sendEvents(h, [
      {
        event: '$identify',
        distinctId: 'alice',
        timestamp: now - 3 * HOUR,
        properties: { $set: { email: 'alice@shop.test', plan: 'pro' } },
      },
      {
        event: '$identify',
        distinctId: 'bob',
        timestamp: now - 3 * HOUR,
        properties: { $set: { email: 'bob@mail.test', plan: 'free' } },
      },
      {
        event: '$identify',
        distinctId: 'carol',
        timestamp: now - 6 * 24 * HOUR,
        properties: { $set: { email: 'carol@internal.test', plan: 'pro' } },
      },
      {
        event: '$pageview',
        distinctId: 'alice',
        sessionId: 'rec-a',
        timestamp: now - 2 * HOUR + 1000,
        properties: { $current_url: 'https://shop.test/cart' },
      },
      {
        event: 'purchase',
        distinctId: 'alice',
        sessionId: 'rec-a',
        timestamp: now - 2 * HOUR + 60_000,
        properties: { amount: 30, currency: 'EUR' },
      },
      {
        event: '$pageview',
        distinctId: 'bob',
        sessionId: 'rec-b',
        timestamp: now - HOUR + 1000,
        properties: { $current_url: 'https://shop.test/' },
      },
      {
        event: '$pageview',
        distinctId: 'carol',
        sessionId: 'rec-c',
        timestamp: now - 5 * 24 * HOUR + 1000,
        properties: { $current_url: 'https://shop.test/admin' },
      },
      {
        event: 'purchase',
        distinctId: 'dave',
        sessionId: 'rec-e',
        timestamp: now - 10 * MIN + 5000,
        properties: { amount: 80 },
      },
    ]);
    await sendRecordings(h, recordings);
  });
  afterAll(async () => {
    await h?.close();
  });

  const q = (params: Record<string, unknown>) =>
    Object.entries(params)
      .map(([k, v]) => `${k}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`)
      .join('&');
  async function ids(params: Record<string, unknown> = {}) {
    const res = await h.request('GET', `${base}?${q(params)}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().results.map((r: { id: string }) => r.id);
  }

  it('lists the last three days, newest first, with metadata', async () => {
    expect(await ids()).toEqual(['rec-e', 'rec-d', 'rec-b', 'rec-a']);
    const page = (await h.request('GET', `${base}?limit=2&offset=1`)).json();
    expect(page.results.map((r: { id: string }) => r.id)).toEqual(['rec-d', 'rec-b']);
    expect(page).toMatchObject({ has_next: true, version: 4 });
    expect((await h.request('GET', `${base}?limit=2&offset=2`)).json().has_next).toBe(false);
    const a = (await h.request('GET', `${base}rec-a/`)).json();
    expect(a).toMatchObject({
      id: 'rec-a',
      distinct_id: 'alice',
      recording_duration: 120,
      active_seconds: 6,
      inactive_seconds: 114,
      start_time: new Date(now - 2 * HOUR).toISOString(),
      end_time: new Date(now - 2 * HOUR + 120_000).toISOString(),
      click_count: 5,
      keypress_count: 2,
      mouse_activity_count: 5,
      console_error_count: 1,
      console_warn_count: 0,
      console_log_count: 0,
      start_url: 'https://shop.test/cart',
      snapshot_source: 'web',
      ongoing: true,
      viewed: false,
      person: {
        name: 'alice@shop.test',
        distinct_ids: ['alice'],
        properties: { email: 'alice@shop.test', plan: 'pro' },
      },
    });
    // dave's purchase made him a person, without properties.
    expect((await h.request('GET', `${base}rec-e/`)).json().person).toMatchObject({
      name: 'dave',
      properties: {},
    });
  });

  it('filters by date range', async () => {
    expect(await ids({ date_from: '-7d' })).toEqual(['rec-e', 'rec-d', 'rec-b', 'rec-a', 'rec-c']);
    expect(await ids({ date_from: 'all', date_to: new Date(now - 90 * MIN).toISOString() })).toEqual([
      'rec-a',
      'rec-c',
    ]);
    expect(await ids({ date_from: '-45M' })).toEqual(['rec-e', 'rec-d']);
  });

  it('filters by duration and activity', async () => {
    const gt = (key: string, value: number) => [{ type: 'recording', key, value, operator: 'gt' }];
    expect(await ids({ having_predicates: gt('duration', 30) })).toEqual(['rec-e', 'rec-a']);
    expect(await ids({ having_predicates: gt('duration', 30), date_from: '-7d' })).toEqual([
      'rec-e',
      'rec-a',
      'rec-c',
    ]);
    expect(await ids({ having_predicates: gt('active_seconds', 3) })).toEqual(['rec-a']);
    expect(
      await ids({
        having_predicates: [{ type: 'recording', key: 'inactive_seconds', value: 21, operator: 'lt' }],
      }),
    ).toEqual(['rec-d', 'rec-b']);
  });

  it('filters by events and event properties', async () => {
    expect(await ids({ events: [{ id: 'purchase', type: 'events' }] })).toEqual(['rec-e', 'rec-a']);
    const big = [
      {
        id: 'purchase',
        type: 'events',
        properties: [{ type: 'event', key: 'amount', value: 50, operator: 'gt' }],
      },
    ];
    expect(await ids({ events: big })).toEqual(['rec-e']);
    expect(
      await ids({
        properties: [{ type: 'event', key: '$current_url', value: 'CART', operator: 'icontains' }],
      }),
    ).toEqual(['rec-a']);
    expect(
      await ids({
        properties: [{ type: 'event', key: 'currency', value: ['EUR', 'USD'], operator: 'exact' }],
      }),
    ).toEqual(['rec-a']);
  });

  it('filters by person properties, including persons without the property', async () => {
    const plan = (operator: string, value?: unknown) => ({
      properties: [{ type: 'person', key: 'plan', value, operator }],
    });
    expect(await ids(plan('exact', ['pro']))).toEqual(['rec-d', 'rec-a']);
    expect(await ids(plan('is_not', 'pro'))).toEqual(['rec-e', 'rec-b']);
    expect(await ids(plan('is_not_set'))).toEqual(['rec-e']);
    expect(await ids(plan('regex', '^fr'))).toEqual(['rec-b']);
  });

  it('filters by console level, snapshot source and visited page', async () => {
    const level = (value: string[]) => ({
      console_log_filters: [{ type: 'log_entry', key: 'level', value, operator: 'exact' }],
    });
    expect(await ids(level(['error']))).toEqual(['rec-a']);
    expect(await ids(level(['warn', 'error']))).toEqual(['rec-b', 'rec-a']);
    expect(await ids(level(['info']))).toEqual(['rec-d']);
    const source = [{ type: 'recording', key: 'snapshot_source', value: ['mobile'], operator: 'exact' }];
    expect(await ids({ having_predicates: source })).toEqual(['rec-d']);
    const page = (operator: string, value: string) => ({
      filter_group: { type: 'AND', values: [{ type: 'recording', key: 'visited_page', value, operator }] },
    });
    expect(await ids(page('icontains', '/help'))).toEqual(['rec-e']);
    expect(await ids(page('not_icontains', 'https://shop.test'))).toEqual(['rec-d']);
  });

  it('combines filters with AND, OR and nested groups', async () => {
    const purchase = { id: 'purchase', type: 'events' };
    const free = { type: 'person', key: 'plan', value: 'free', operator: 'exact' };
    expect(await ids({ events: [purchase], properties: [free] })).toEqual([]);
    expect(await ids({ events: [purchase], properties: [free], operand: 'OR' })).toEqual([
      'rec-e',
      'rec-b',
      'rec-a',
    ]);
    const tree = {
      type: 'OR',
      values: [
        { type: 'AND', values: [purchase, { type: 'person', key: 'plan', value: 'pro', operator: 'exact' }] },
        { type: 'AND', values: [{ type: 'log_entry', key: 'level', value: ['warn'], operator: 'exact' }] },
      ],
    };
    expect(await ids({ filter_group: tree })).toEqual(['rec-b', 'rec-a']);
    expect(
      await ids({
        filter_group: tree,
        duration: [{ type: 'recording', key: 'duration', value: 60, operator: 'gt' }],
      }),
    ).toEqual(['rec-a']);
  });

  it('orders by any recording measure', async () => {
    expect(await ids({ order: 'duration' })).toEqual(['rec-a', 'rec-e', 'rec-b', 'rec-d']);
    expect(await ids({ order: 'duration', order_direction: 'ASC' })).toEqual([
      'rec-d',
      'rec-b',
      'rec-e',
      'rec-a',
    ]);
    expect(await ids({ order: 'click_count' })).toEqual(['rec-a', 'rec-e', 'rec-b', 'rec-d']);
  });

  it('applies the project test account filters, and scopes by ids and person', async () => {
    const patch = await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, {
      body: {
        test_account_filters: [
          { key: 'email', value: 'internal.test', operator: 'not_icontains', type: 'person' },
        ],
      },
    });
    expect(patch.statusCode).toBe(200);
    expect(await ids({ date_from: '-7d', filter_test_accounts: true })).toEqual([
      'rec-e',
      'rec-d',
      'rec-b',
      'rec-a',
    ]);
    expect(await ids({ date_from: '-7d', filter_test_accounts: false })).toHaveLength(5);
    expect(await ids({ session_ids: ['rec-b', 'rec-c', 'nope'], date_from: '-7d' })).toEqual([
      'rec-b',
      'rec-c',
    ]);
    expect(await ids({ distinct_ids: ['alice'] })).toEqual(['rec-d', 'rec-a']);
    const person = (await h.request('GET', `${base}rec-b/`)).json().person;
    expect(await ids({ person_uuid: person.id })).toEqual(['rec-b']);
  });

  it('refuses bad filters with the parameter named', async () => {
    const attr = async (params: Record<string, unknown>) => {
      const res = await h.request('GET', `${base}?${q(params)}`);
      expect(res.statusCode).toBe(400);
      return res.json().attr;
    };
    expect(await attr({ properties: 'not json' })).toBe('properties');
    expect(await attr({ order: 'loudness' })).toBe('order');
    expect(await attr({ date_from: 'recently' })).toBe('date_from');
    expect(await attr({ person_uuid: 'not-a-uuid' })).toBe('person_uuid');
    expect(
      await attr({
        events: [{ type: 'events', id: 'x', properties: [{ key: 'k', value: 'v', operator: 'sort of' }] }],
      }),
    ).toBe('events__0__properties__0__operator');
    // Valid for JavaScript but not for ClickHouse's RE2: still the caller's mistake, not a 500.
    const lookahead = await h.request(
      'GET',
      `${base}?${q({ properties: [{ type: 'person', key: 'plan', value: '(?=p)', operator: 'regex' }] })}`,
    );
    expect(lookahead.statusCode).toBe(400);
  });

  it('keeps projects apart', async () => {
    const other = await h.owner('Recording neighbours');
    const token = (await h.request('GET', `/api/projects/${other.projectId}/`, { key: other.key })).json()
      .api_token;
    const res = await h.app.inject({
      method: 'POST',
      url: '/s/?compression=none',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify([
        {
          event: '$snapshot',
          properties: {
            token,
            distinct_id: 'x',
            $session_id: 'rec-other',
            $snapshot_data: [{ type: 4, timestamp: now - MIN, data: { href: 'https://x.test' } }],
          },
        },
      ]),
    });
    expect(res.statusCode).toBe(200);
    expect(await ids()).not.toContain('rec-other');
    const theirRecording = await h.request(
      'GET',
      `/api/environments/${other.projectId}/session_recordings/rec-other/`,
      { key: other.key },
    );
    expect(theirRecording.json()).toMatchObject({ id: 'rec-other', person: null, recording_duration: 0 });
    expect((await h.request('GET', `${base}rec-other/`)).json()).toEqual({
      ...NOT_FOUND,
      detail: 'Recording not found',
    });
    const theirs = await h.request('GET', `/api/environments/${other.projectId}/session_recordings/`, {
      key: other.key,
    });
    expect(theirs.json().results.map((r: { id: string }) => r.id)).toEqual(['rec-other']);
    expect(
      (
        await h.request('GET', `/api/environments/${other.projectId}/session_recordings/rec-a/`, {
          key: other.key,
        })
      ).statusCode,
    ).toBe(404);
  });

  it('records views per user', async () => {
    const member = await h.user({ organizationId: h.boot.organization_id });
    expect((await h.request('GET', `${base}rec-b/?save_view=1`)).json().viewed).toBe(true);
    expect((await h.request('GET', `${base}rec-b/`)).json().viewed).toBe(true);
    const theirs = (await h.request('GET', `${base}rec-b/`, { key: member.key })).json();
    expect(theirs).toMatchObject({ viewed: false, viewers: ['admin@burrow.local'] });
  });

  it('asks for the recording scopes', async () => {
    const reader = await h.user({
      organizationId: h.boot.organization_id,
      key: { scopes: ['session_recording:read'] },
    });
    expect((await h.request('GET', base, { key: reader.key })).statusCode).toBe(200);
    const del = await h.request('DELETE', `${base}rec-a/`, { key: reader.key });
    expect(del.json()).toMatchObject({ detail: "API key missing required scope 'session_recording:write'" });
    const playlistsOnly = await h.user({
      organizationId: h.boot.organization_id,
      key: { scopes: ['session_recording_playlist:read'] },
    });
    expect((await h.request('GET', base, { key: playlistsOnly.key })).statusCode).toBe(403);
  });
});
