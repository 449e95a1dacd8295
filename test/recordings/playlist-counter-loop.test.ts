import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { sendRecordings } from '../helpers/recordings.js';

/**
 * The server's own background counter, seen only through the API: counts appear shortly after a
 * playlist is created or its filters change, and list requests never recount.
 */
describe(`the background playlist counter (${backend})`, () => {
  let h: Harness;
  let base: string;
  const now = Date.now();
  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2', PLAYLIST_COUNT_INTERVAL_MS: '100' });
    base = `/api/environments/${h.boot.project_id}/session_recording_playlists/`;
    await sendRecordings(h, [
      { sessionId: 'loop-1', distinctId: 'a', start: now - 600_000, durationMs: 90_000, console: ['error'] },
      { sessionId: 'loop-2', distinctId: 'b', start: now - 300_000, durationMs: 10_000 },
    ]);
  });
  afterAll(async () => {
    await h?.close();
  });

  async function eventually(shortId: string, ok: (c: { count: number | null }) => boolean) {
    const end = Date.now() + 15_000;
    for (;;) {
      const c = (await h.request('GET', `${base}${shortId}/`)).json().recordings_counts.saved_filters;
      if (ok(c) || Date.now() > end) return c;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('counts new playlists and changed filters by itself', async () => {
    const res = await h.request('POST', base, {
      body: { type: 'filters', filters: { console_logs: ['error'] } },
    });
    const id = res.json().short_id;
    expect(await eventually(id, (c) => c.count !== null)).toMatchObject({ count: 1, has_more: false });

    // A new matching recording is not seen by list requests: the count is kept until it is stale.
    await sendRecordings(h, [
      { sessionId: 'loop-3', distinctId: 'c', start: now - 60_000, durationMs: 5000, console: ['error'] },
    ]);
    for (let i = 0; i < 5; i++) {
      const listed = (await h.request('GET', base)).json().results[0];
      expect(listed.recordings_counts.saved_filters.count).toBe(1);
      await new Promise((r) => setTimeout(r, 100));
    }

    await h.request('PATCH', `${base}${id}/`, { body: { filters: { date_from: '-1d' } } });
    expect(await eventually(id, (c) => c.count === 3)).toMatchObject({ count: 3 });
  });
});
