import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  COUNT_LIMIT,
  countDuePlaylists,
  MAX_COUNT_ERRORS,
} from '../../src/domain/recordings/playlist-counter.js';
import { findPlaylist } from '../../src/store/meta/playlists.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { type CraftedRecording, sendEvents, sendRecordings } from '../helpers/recordings.js';

const MIN = 60_000;
/** Counts every due playlist now; `-1` makes every count stale, as if it were old. */
const STALE = { maxAgeMs: -1, batch: 50 };
const FRESH = { maxAgeMs: 3_600_000, batch: 50 };

describe(`recordings_counts of saved filters (${backend})`, () => {
  let h: Harness;
  let base: string;
  const now = Date.now();
  const rec = (
    sessionId: string,
    distinctId: string,
    agoMin: number,
    extra: Partial<CraftedRecording> = {},
  ) => ({
    sessionId,
    distinctId,
    start: now - agoMin * MIN,
    durationMs: 10_000,
    ...extra,
  });

  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2', PLAYLIST_COUNT_INTERVAL_MS: '0' });
    base = `/api/environments/${h.boot.project_id}/session_recording_playlists/`;
    await sendEvents(h, [
      {
        event: '$identify',
        distinctId: 'pro-1',
        timestamp: now - 90 * MIN,
        properties: { $set: { plan: 'pro' } },
      },
      {
        event: '$identify',
        distinctId: 'pro-2',
        timestamp: now - 90 * MIN,
        properties: { $set: { plan: 'pro' } },
      },
      {
        event: 'signup',
        distinctId: 'free-1',
        sessionId: 'c-3',
        timestamp: now - 40 * MIN,
        properties: { $set: { plan: 'free' } },
      },
    ]);
    await sendRecordings(h, [
      rec('c-1', 'pro-1', 60, { durationMs: 90_000, console: ['error'] }),
      rec('c-2', 'pro-2', 50, { console: ['warn'] }),
      rec('c-3', 'free-1', 40, { durationMs: 120_000 }),
      rec('c-old', 'pro-1', 6 * 24 * 60, { durationMs: 200_000 }),
    ]);
  });
  afterAll(async () => {
    await h?.close();
  });

  async function create(filters: object) {
    const res = await h.request('POST', base, { body: { type: 'filters', filters } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().short_id as string;
  }
  const counts = async (shortId: string) =>
    (await h.request('GET', `${base}${shortId}/`)).json().recordings_counts.saved_filters;

  const long = { duration: [{ type: 'recording', key: 'duration', value: 60, operator: 'gt' }] };
  const cases: Array<[string, object, number]> = [
    ['long recordings', long, 2],
    ['long recordings in the last week', { ...long, date_from: '-7d' }, 3],
    ['console errors', { console_logs: ['error'] }, 1],
    ['warnings or errors', { console_logs: ['warn', 'error'] }, 2],
    ['pro persons', { properties: [{ type: 'person', key: 'plan', value: 'pro', operator: 'exact' }] }, 2],
    ['a signup event', { events: [{ id: 'signup', type: 'events' }] }, 1],
    [
      'pro or signed up',
      {
        operand: 'OR',
        events: [{ id: 'signup', type: 'events' }],
        properties: [{ type: 'person', key: 'plan', value: 'pro' }],
      },
      3,
    ],
    ['nothing', { events: [{ id: 'never-happens', type: 'events' }] }, 0],
  ];
  const shortIds = new Map<string, string>();

  it('counts exactly the recordings each filter matches, off the request path', async () => {
    for (const [name, filters] of cases) shortIds.set(name, await create(filters));
    for (const id of shortIds.values()) expect((await counts(id)).count).toBeNull();

    expect(await countDuePlaylists(h.deps, FRESH)).toBe(cases.length);
    for (const [name, , expected] of cases) {
      const c = await counts(shortIds.get(name)!);
      expect({ name, ...c }).toMatchObject({
        name,
        count: expected,
        has_more: false,
        watched_count: 0,
        increased: false,
      });
      expect(Date.parse(c.last_refreshed_at)).toBeGreaterThan(now - MIN);
    }
    // Fresh counts are not recounted, whatever the list traffic.
    expect(await countDuePlaylists(h.deps, FRESH)).toBe(0);
  });

  it('stays as counted until the next pass, then says it increased', async () => {
    const longId = shortIds.get('long recordings')!;
    await sendRecordings(h, [rec('c-4', 'pro-2', 5, { durationMs: 70_000 })]);
    for (let i = 0; i < 3; i++) await h.request('GET', `${base}?limit=100`);
    expect((await counts(longId)).count).toBe(2);
    await countDuePlaylists(h.deps, STALE);
    expect(await counts(longId)).toMatchObject({ count: 3, increased: true });
    await countDuePlaylists(h.deps, STALE);
    expect(await counts(longId)).toMatchObject({ count: 3, increased: false });
  });

  it('counts what the user watched among the matches, per user', async () => {
    const errorsId = shortIds.get('warnings or errors')!;
    await h.request('GET', `/api/environments/${h.boot.project_id}/session_recordings/c-2/?save_view=true`);
    expect(await counts(errorsId)).toMatchObject({ count: 2, watched_count: 1 });
    const member = await h.user({ organizationId: h.boot.organization_id });
    const theirs = (await h.request('GET', `${base}${errorsId}/`, { key: member.key })).json();
    expect(theirs.recordings_counts.saved_filters.watched_count).toBe(0);
  });

  it('drops the count when filters change, and counts the new ones', async () => {
    const id = shortIds.get('nothing')!;
    const patched = await h.request('PATCH', `${base}${id}/`, {
      body: { filters: { console_logs: ['error'] } },
    });
    expect(patched.json().recordings_counts.saved_filters.count).toBeNull();
    expect(await countDuePlaylists(h.deps, FRESH)).toBe(1);
    expect(await counts(id)).toMatchObject({ count: 1, increased: false });
  });

  it('skips deleted playlists and deleted recordings', async () => {
    const id = shortIds.get('pro persons')!;
    await h.request('PATCH', `${base}${id}/`, { body: { deleted: true } });
    const before = (await findPlaylist(h.deps.meta, h.boot.project_id, id))!.lastCountedAt;
    await countDuePlaylists(h.deps, STALE);
    expect((await findPlaylist(h.deps.meta, h.boot.project_id, id))!.lastCountedAt).toBe(before);
    await h.request('PATCH', `${base}${id}/`, { body: { deleted: false } });

    const del = await h.request('DELETE', `/api/environments/${h.boot.project_id}/session_recordings/c-1/`);
    expect(del.statusCode).toBe(204);
    await countDuePlaylists(h.deps, STALE);
    expect((await counts(id)).count).toBe(2); // c-2 and c-4; c-1 is gone
  });

  it('lets only one of several nodes count a playlist', async () => {
    const due = (await h.request('GET', `${base}?type=filters&limit=100`)).json().count;
    // Every playlist due at once (as after a restart), and three nodes waking together.
    await h.deps.meta.updateTable('session_recording_playlists').set({ last_counted_at: null }).execute();
    const passes = await Promise.all([
      countDuePlaylists(h.deps, FRESH),
      countDuePlaylists(h.deps, FRESH),
      countDuePlaylists(h.deps, FRESH),
    ]);
    expect(passes.reduce((a, b) => a + b, 0)).toBe(due);
  });

  it('gives up on a playlist whose count keeps failing, until its filters change', async () => {
    // Valid JavaScript, but not RE2: refused on save now, so written as one stored before that
    // was; ClickHouse refuses it at count time.
    const id = await create({
      properties: [{ type: 'person', key: 'plan', value: '^pro', operator: 'regex' }],
    });
    await h.deps.meta
      .updateTable('session_recording_playlists')
      .set({
        filters: JSON.stringify({
          properties: [{ type: 'person', key: 'plan', value: '(?=pro)', operator: 'regex' }],
        }),
      })
      .where('short_id', '=', id)
      .execute();
    const errors: unknown[] = [];
    for (let i = 0; i < MAX_COUNT_ERRORS + 2; i++) {
      await countDuePlaylists(h.deps, { ...STALE, onError: (e) => errors.push(e) });
    }
    expect(errors).toHaveLength(MAX_COUNT_ERRORS);
    const row = (await findPlaylist(h.deps.meta, h.boot.project_id, id))!;
    expect(row.counts).toMatchObject({ error_count: MAX_COUNT_ERRORS, refreshed_at: null });
    expect(await counts(id)).toMatchObject({ count: null, last_refreshed_at: null });

    await h.request('PATCH', `${base}${id}/`, {
      body: { filters: { properties: [{ type: 'person', key: 'plan', value: '^pro', operator: 'regex' }] } },
    });
    await countDuePlaylists(h.deps, FRESH);
    expect((await counts(id)).count).toBe(2);
  });

  it(`keeps at most ${COUNT_LIMIT} matches and says there are more`, async () => {
    const many = Array.from({ length: COUNT_LIMIT + 1 }, (_, i) =>
      rec(`bulk-${i}`, 'bulk', 20, { durationMs: 1000, url: 'https://bulk.test/' }),
    );
    await sendRecordings(h, many);
    const id = await create({
      filter_group: {
        type: 'AND',
        values: [{ type: 'recording', key: 'visited_page', value: 'bulk.test', operator: 'icontains' }],
      },
    });
    await countDuePlaylists(h.deps, FRESH);
    expect(await counts(id)).toMatchObject({ count: COUNT_LIMIT, has_more: true });
  });
});
