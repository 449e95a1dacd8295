import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPasswordByEmail } from '../../src/domain/accounts/password-change.js';
import { snappyLiterals } from '../../src/domain/recordings/snappy.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const NOT_FOUND_RECORDING = {
  type: 'invalid_request',
  code: 'not_found',
  detail: 'Recording not found',
  attr: null,
};

describe(`recording snapshots and deletion (${backend})`, () => {
  let h: Harness;
  let base: string;
  // Aligned on the ten-minute slices that blobs are cut into.
  const t0 = Math.floor(Date.now() / 600_000) * 600_000 - 2 * 3_600_000;
  const batch = (sessionId: string, windowId: string, at: number, marker: string) => ({
    event: '$snapshot',
    properties: {
      distinct_id: 'snap-user',
      $session_id: sessionId,
      $window_id: windowId,
      $snapshot_data: [
        { type: 4, timestamp: at, data: { href: `https://snap.test/${marker}` } },
        { type: 3, timestamp: at + 10, data: { source: 2, type: 2, id: 1 } },
      ],
    },
  });
  async function send(events: object[]) {
    const res = await h.app.inject({
      method: 'POST',
      url: '/s/?compression=none',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(
        events.map((e) => ({
          ...e,
          properties: { ...(e as { properties: object }).properties, token: h.boot.project_api_key },
        })),
      ),
    });
    expect(res.statusCode).toBe(200);
  }
  const lines = (body: string) => body.split('\n').map((l) => JSON.parse(l));

  beforeAll(async () => {
    h = await startHarness({
      INGEST_BATCH_DELAY_MS: '2',
      PLAYLIST_COUNT_INTERVAL_MS: '0',
      BURROW_ADMIN_EMAIL: 'snap-owner@example.com',
    });
    base = `/api/environments/${h.boot.project_id}/session_recordings/`;
    await send([batch('snap-1', 'w2', t0 + 300_000, 'second'), batch('snap-1', 'w1', t0 + 1000, 'first')]);
    await send([batch('snap-1', 'w1', t0 + 720_000, 'third')]);
    // An SDK retry of the first batch: stored twice, served once.
    await send([batch('snap-1', 'w1', t0 + 1000, 'first')]);
    await send([batch('snap-2', 'w1', t0 + 2000, 'other')]);
  });
  afterAll(async () => {
    await h?.close();
  });

  const snapshotData = (window: string, at: number, marker: string) =>
    batch('snap-1', window, at, marker).properties.$snapshot_data;

  it('lists blob_v2 sources in time order, one block per ten-minute slice, keyed by index', async () => {
    const res = await h.request('GET', `${base}snap-1/snapshots/`);
    expect(res.json()).toEqual({
      sources: [
        {
          source: 'blob_v2',
          start_timestamp: new Date(t0 + 1000).toISOString(),
          end_timestamp: new Date(t0 + 300_000).toISOString(),
          blob_key: '0',
        },
        {
          source: 'blob_v2',
          start_timestamp: new Date(t0 + 720_000).toISOString(),
          end_timestamp: new Date(t0 + 720_000).toISOString(),
          blob_key: '1',
        },
      ],
    });
  });

  it('serves blob_v2 blocks as JSONL [window_id, event], in order and without duplicates', async () => {
    const one = await h.request(
      'GET',
      `${base}snap-1/snapshots/?source=blob_v2&start_blob_key=0&end_blob_key=0`,
    );
    expect(one.statusCode).toBe(200);
    expect(one.headers['content-type']).toBe('application/jsonl');
    expect(one.headers['content-disposition']).toBe('inline');
    // Two hours old: the slice is settled, so the browser may keep it as PostHog lets it.
    expect(one.headers['cache-control']).toBe('private, max-age=3600');
    expect(one.body.endsWith('\n')).toBe(false);
    const [first, second] = [
      snapshotData('w1', t0 + 1000, 'first'),
      snapshotData('w2', t0 + 300_000, 'second'),
    ];
    expect(lines(one.body)).toEqual([...first.map((e) => ['w1', e]), ...second.map((e) => ['w2', e])]);

    const both = await h.request(
      'GET',
      `${base}snap-1/snapshots/?source=blob_v2&start_blob_key=0&end_blob_key=1`,
    );
    const third = snapshotData('w1', t0 + 720_000, 'third');
    expect(lines(both.body)).toEqual([...lines(one.body), ...third.map((e) => ['w1', e])]);
    const last = await h.request(
      'GET',
      `${base}snap-1/snapshots/?source=blob_v2&start_blob_key=1&end_blob_key=1`,
    );
    expect(lines(last.body)).toEqual(third.map((e) => ['w1', e]));
  });

  it('serves decompress=false as length-prefixed Snappy blocks, one per block', async () => {
    const url = `${base}snap-1/snapshots/?source=blob_v2&start_blob_key=0&end_blob_key=1`;
    const plain = await h.request('GET', url);
    const packed = await h.request('GET', `${url}&decompress=false`);
    expect(packed.statusCode).toBe(200);
    expect(packed.headers['content-type']).toBe('application/octet-stream');
    const body = packed.rawPayload;
    const blocks: Buffer[] = [];
    for (let at = 0; at < body.length; ) {
      const length = body.readUInt32BE(at);
      blocks.push(body.subarray(at + 4, at + 4 + length));
      at += 4 + length;
    }
    expect(blocks).toHaveLength(2);
    // Each block is the Snappy form of that block's lines, each line ending in a newline (the
    // encoder itself is checked against libsnappy in snappy.test.ts).
    const perBlock = [lines(plain.body).slice(0, 4), lines(plain.body).slice(4)];
    expect(blocks.map((b) => b.toString('hex'))).toEqual(
      perBlock.map((ls) =>
        snappyLiterals(Buffer.from(ls.map((l) => `${JSON.stringify(l)}\n`).join(''))).toString('hex'),
      ),
    );
  });

  it('refuses blob_v2 requests PostHog refuses, with its messages', async () => {
    const res = async (query: string) => (await h.request('GET', `${base}snap-1/snapshots/?${query}`)).json();
    expect(await res('source=blob_v2')).toMatchObject({
      code: 'invalid_input',
      detail: 'Must provide both start blob key and end blob key',
    });
    expect(await res('source=blob_v2&start_blob_key=0')).toMatchObject({
      detail: 'Must provide both start blob key and end blob key',
    });
    expect(await res('source=blob_v2&start_blob_key=a&end_blob_key=1')).toMatchObject({
      detail: 'Blob keys must be integers',
    });
    expect(await res('source=blob_v2&start_blob_key=-1&end_blob_key=1')).toMatchObject({
      detail: 'Blob keys must be integers',
    });
    // A personal API key reads at most 20 more blocks than the first at once, as in PostHog.
    expect(await res('source=blob_v2&start_blob_key=0&end_blob_key=21')).toMatchObject({
      detail: 'Cannot request more than 20 blob keys at once',
    });
    expect(await res('source=blob_v2&start_blob_key=1&end_blob_key=0')).toMatchObject({
      attr: 'start_blob_key',
    });
    expect(await res('source=blob_v2&start_blob_key=0&end_blob_key=2')).toEqual({
      type: 'invalid_request',
      code: 'not_found',
      detail: 'Block index out of range',
      attr: null,
    });
    expect(await res('source=blob_v2&start_blob_key=0&end_blob_key=0&decompress=maybe')).toMatchObject({
      detail: 'Must be a valid boolean.',
      attr: 'decompress',
    });
    expect(await res('source=blob_v2_lts')).toMatchObject({ detail: 'Must provide a blob key' });
    expect(await res('source=blob_v2_lts&blob_key=x')).toEqual(NOT_FOUND_RECORDING);
    expect(await res('source=realtime')).toMatchObject({
      code: 'invalid_input',
      detail: 'Invalid source must be one of [blob_v2, blob_v2_lts, blob]',
      attr: 'source',
    });
    expect(
      (
        await h.request('GET', `${base}missing/snapshots/?source=blob_v2&start_blob_key=0&end_blob_key=0`)
      ).json(),
    ).toEqual(NOT_FOUND_RECORDING);
  });

  it('lets a login session read 100 blocks past the first at once, as PostHog lets the app', async () => {
    await setPasswordByEmail(h.deps, 'snap-owner@example.com', 'snap password');
    const login = await h.request('POST', '/api/login/', {
      key: null,
      body: { email: 'snap-owner@example.com', password: 'snap password' },
    });
    const session = /burrow_session=([^;]+)/.exec(String(login.headers['set-cookie']))?.[1];
    const asBrowser = async (query: string) =>
      (
        await h.request('GET', `${base}snap-1/snapshots/?${query}`, {
          key: null,
          headers: { cookie: `burrow_session=${session}` },
        })
      ).json();
    expect(await asBrowser('source=blob_v2&start_blob_key=0&end_blob_key=100')).toMatchObject({
      detail: 'Block index out of range',
    });
    expect(await asBrowser('source=blob_v2&start_blob_key=0&end_blob_key=101')).toMatchObject({
      detail: 'Cannot request more than 100 blob keys at once',
    });
  });

  it('still serves the earlier blob source by its <first ms>-<last ms> key', async () => {
    const first = await h.request(
      'GET',
      `${base}snap-1/snapshots/?source=blob&blob_key=${t0 + 1000}-${t0 + 300_000}`,
    );
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toContain('application/json');
    const got = lines(first.body);
    expect(got.map((l) => [l.window_id, l.data[0].data.href])).toEqual([
      ['w1', 'https://snap.test/first'],
      ['w2', 'https://snap.test/second'],
    ]);
    expect(got[0].data).toEqual(snapshotData('w1', t0 + 1000, 'first'));
    const res = (query: string) => h.request('GET', `${base}snap-1/snapshots/?${query}`);
    expect((await res('source=blob')).json()).toMatchObject({
      detail: 'Must provide a snapshot file blob key',
    });
    expect((await res('source=blob&blob_key=../../etc')).json()).toMatchObject({ code: 'not_found' });
    expect((await res('source=blob&blob_key=1-2')).json()).toMatchObject({
      detail: 'Snapshot file not found',
    });
    expect((await h.request('GET', `${base}missing/snapshots/`)).json()).toEqual(NOT_FOUND_RECORDING);
  });

  it('deletes a recording for good, even when more snapshots arrive', async () => {
    expect((await h.request('GET', `${base}snap-2/`)).statusCode).toBe(200);
    const del = await h.request('DELETE', `${base}snap-2/`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await h.request('GET', `${base}snap-2/`)).json()).toEqual(NOT_FOUND_RECORDING);
    expect((await h.request('GET', `${base}snap-2/snapshots/`)).json()).toEqual(NOT_FOUND_RECORDING);
    const [left] = await h.stores.events.query<{ n: number }>(
      `SELECT count() AS n FROM ${h.stores.events.table('session_replay_snapshots')} WHERE team_id = {t:Int64} AND session_id = 'snap-2'`,
      { params: { t: h.boot.project_id } },
    );
    expect(left?.n).toBe(0);

    await send([batch('snap-2', 'w1', t0 + 9000, 'late')]);
    expect((await h.request('GET', `${base}snap-2/`)).statusCode).toBe(404);
    const listed = (await h.request('GET', `${base}?date_from=-1d`))
      .json()
      .results.map((r: { id: string }) => r.id);
    expect(listed).toEqual(['snap-1']);
    expect((await h.request('DELETE', `${base}snap-2/`)).json()).toEqual(NOT_FOUND_RECORDING);
    expect((await h.request('DELETE', `${base}never-was/`)).statusCode).toBe(404);
    expect((await h.request('GET', `${base}snap-1/`)).statusCode).toBe(200);
  });
});
