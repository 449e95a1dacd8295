import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2', PLAYLIST_COUNT_INTERVAL_MS: '0' });
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

  it('lists blob sources in time order, one per ten-minute slice', async () => {
    const res = await h.request('GET', `${base}snap-1/snapshots/`);
    expect(res.json()).toEqual({
      sources: [
        {
          source: 'blob',
          start_timestamp: new Date(t0 + 1000).toISOString(),
          end_timestamp: new Date(t0 + 300_000).toISOString(),
          blob_key: `${t0 + 1000}-${t0 + 300_000}`,
        },
        {
          source: 'blob',
          start_timestamp: new Date(t0 + 720_000).toISOString(),
          end_timestamp: new Date(t0 + 720_000).toISOString(),
          blob_key: `${t0 + 720_000}-${t0 + 720_000}`,
        },
      ],
    });
  });

  it('serves a blob as JSON lines of window and rrweb events, in order and without duplicates', async () => {
    const { sources } = (await h.request('GET', `${base}snap-1/snapshots/`)).json();
    const first = await h.request(
      'GET',
      `${base}snap-1/snapshots/?source=blob&blob_key=${sources[0].blob_key}`,
    );
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toContain('application/json');
    const got = lines(first.body);
    expect(got.map((l) => [l.window_id, l.data[0].data.href])).toEqual([
      ['w1', 'https://snap.test/first'],
      ['w2', 'https://snap.test/second'],
    ]);
    expect(got[0].data).toEqual(batch('snap-1', 'w1', t0 + 1000, 'first').properties.$snapshot_data);
    const second = await h.request(
      'GET',
      `${base}snap-1/snapshots/?source=blob&blob_key=${sources[1].blob_key}`,
    );
    expect(lines(second.body).map((l) => l.data[0].data.href)).toEqual(['https://snap.test/third']);
  });

  it('refuses unknown sources and keys', async () => {
    const res = (query: string) => h.request('GET', `${base}snap-1/snapshots/?${query}`);
    expect((await res('source=realtime')).json()).toMatchObject({
      code: 'invalid_input',
      detail: 'Invalid source must be one of [blob]',
    });
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
