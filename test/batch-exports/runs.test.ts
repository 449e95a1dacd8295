import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleWindows } from '../../src/domain/batch-exports/windows.js';
import { exportDeps } from '../../src/server/batch-exports.js';
import { claimRun } from '../../src/store/meta/batch-export-runs.js';
import { createDestinationDb, type DestinationDb } from '../helpers/export-destinations.js';
import { drain, insertArrived, schedulerFor, testClock } from '../helpers/export-fixtures.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/** Scheduled runs, retries, pause/unpause with backfill and leases, exporting into a real PostgreSQL. */
describe(`batch export runs into PostgreSQL (${backend})`, () => {
  const clock = testClock('2024-03-01T10:20:00Z');
  let h: Harness;
  let dest: DestinationDb;
  let base: string;

  beforeAll(async () => {
    h = await startHarness(
      {
        BATCH_EXPORTS_SCHEDULER: 'false',
        BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS: 'true',
        BATCH_EXPORTS_SETTLE_MS: '0',
        BATCH_EXPORTS_PAGE_ROWS: '7',
        BATCH_EXPORTS_RETRY_BASE_MS: '0',
        BATCH_EXPORTS_MAX_ATTEMPTS: '2',
        BATCH_EXPORTS_AUTO_PAUSE_AFTER: '2',
        BATCH_EXPORTS_LEASE_MS: '60000',
      },
      { now: clock.now },
    );
    dest = await createDestinationDb();
    base = `/api/projects/${h.boot.project_id}/batch_exports/`;
  });
  afterAll(async () => {
    await h?.close();
    await dest?.drop();
  });

  const createExport = async (table: string, extra: Record<string, unknown> = {}) => {
    const res = await h.request('POST', base, {
      body: {
        name: table,
        destination: { type: 'Postgres', config: { ...dest.config, table_name: table } },
        interval: 'hour',
        ...extra,
      },
    });
    expect(res.statusCode).toBe(201);
    return res.json().id as string;
  };
  const runs = async (id: string, query = '') =>
    (await h.request('GET', `${base}${id}/runs/?after=2000-01-01T00:00:00Z${query}`)).json().results as Array<
      Record<string, unknown>
    >;

  it('exports each window once, typed, upserted by uuid, team-filtered', async () => {
    clock.set('2024-03-01T10:20:00Z');
    const id = await createExport('events_a');
    const other = await h.owner();
    const inWindow = await insertArrived(
      h,
      h.boot.project_id,
      Array.from({ length: 20 }, (_, i) => ({ at: `2024-03-01T10:${String(i * 2).padStart(2, '0')}:00Z` })),
    );
    // A retried event: the same uuid arriving again in the window.
    await insertArrived(h, h.boot.project_id, [{ at: '2024-03-01T10:59:59Z', uuid: inWindow[0] }]);
    await insertArrived(h, h.boot.project_id, [
      { at: '2024-03-01T09:59:59Z' },
      { at: '2024-03-01T11:30:00Z' },
    ]);
    await insertArrived(h, other.projectId, [{ at: '2024-03-01T10:30:00Z' }]);

    const s = schedulerFor(h);
    clock.set('2024-03-01T10:59:00Z');
    await drain(s);
    expect(await runs(id)).toEqual([]);

    clock.set('2024-03-01T11:00:01Z');
    await drain(s);
    const [first] = await runs(id);
    expect(first).toMatchObject({
      status: 'Completed',
      data_interval_start: '2024-03-01T10:00:00.000Z',
      data_interval_end: '2024-03-01T11:00:00.000Z',
      records_completed: 21,
      records_total_count: 21,
      latest_error: null,
      backfill: null,
    });
    expect(first!.bytes_exported).toBeGreaterThan(1000);
    const rows = await dest.query<Record<string, unknown>>('SELECT * FROM events_a ORDER BY timestamp');
    expect(rows).toHaveLength(20);
    expect(rows.map((r) => r.uuid).sort()).toEqual([...inWindow].sort());
    // The retried copy (the later arrival) won.
    expect(rows[19]).toMatchObject({ uuid: inWindow[0], team_id: h.boot.project_id, event: 'exported' });
    expect(rows[0]!.properties).toEqual({ i: 1, text: 'tab\there "quoted" \\ back' });
    expect(rows[0]!.timestamp).toBeInstanceOf(Date);
    const types = await dest.query<{ column_name: string; data_type: string }>(
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'events_a'",
    );
    expect(Object.fromEntries(types.map((t) => [t.column_name, t.data_type]))).toMatchObject({
      uuid: 'uuid',
      properties: 'jsonb',
      timestamp: 'timestamp with time zone',
      team_id: 'integer',
    });

    clock.set('2024-03-01T12:00:01Z');
    await drain(s);
    expect((await dest.query('SELECT count(*)::int AS n FROM events_a'))[0]).toEqual({ n: 21 });
    const view = (await h.request('GET', `${base}${id}/`)).json();
    expect(view.latest_runs).toHaveLength(2);

    // A retried run is a backfill of its window; upserts leave no duplicate.
    const retry = await h.request('POST', `${base}${id}/runs/${first!.id}/retry/`);
    expect(retry.json().backfill_id).toBe(
      `${id}-Backfill-2024-03-01T10:00:00+00:00-2024-03-01T11:00:00+00:00`,
    );
    await drain(s, 2);
    expect((await dest.query('SELECT count(*)::int AS n FROM events_a'))[0]).toEqual({ n: 21 });
    const backfills = (await h.request('GET', `${base}${id}/backfills/`)).json();
    expect(backfills.results[0]).toMatchObject({
      status: 'Completed',
      progress: { total_runs: 1, progress: 1 },
    });
    const cancel = await h.request('POST', `${base}${id}/runs/${first!.id}/cancel/`);
    expect(cancel.json().detail).toBe("Cannot cancel a run that is in 'Completed' status");
    await h.request('DELETE', `${base}${id}/`);
  });

  it('retries a failing run with backoff, fails it, then pauses the export and says why', async () => {
    clock.set('2024-03-02T00:10:00Z');
    const id = await createExport('broken');
    await h.request('PATCH', `${base}${id}/`, { body: { destination: { config: { port: 1 } } } });
    await insertArrived(h, h.boot.project_id, [
      { at: '2024-03-02T00:30:00Z' },
      { at: '2024-03-02T01:30:00Z' },
    ]);
    const s = schedulerFor(h);
    clock.set('2024-03-02T01:00:01Z');
    await drain(s);
    let [run] = await runs(id);
    expect(run).toMatchObject({ status: 'FailedRetryable' });
    expect(String(run!.latest_error)).toMatch(/ECONNREFUSED|connect/);
    await drain(s);
    [run] = await runs(id);
    expect(run).toMatchObject({ status: 'Failed' });
    expect((await h.request('GET', `${base}${id}/`)).json().paused).toBe(false);

    clock.set('2024-03-02T02:00:01Z');
    await drain(s, 2);
    const view = (await h.request('GET', `${base}${id}/`)).json();
    expect(view.paused).toBe(true);
    expect(view.paused_reason).toMatch(/^Paused after 2 consecutive failed runs\. Last error: /);

    // Fixed and unpaused with a backfill: the failed windows are not retried by themselves, the
    // windows missed while paused are.
    await h.request('PATCH', `${base}${id}/`, { body: { destination: { config: { port: 5432 } } } });
    clock.set('2024-03-02T04:10:00Z');
    const unpause = await h.request('POST', `${base}${id}/unpause/`, { body: { backfill: true } });
    expect(unpause.json()).toEqual({ paused: false });
    await drain(s, 4);
    const all = await runs(id, '&ordering=data_interval_start');
    expect(all.filter((r) => r.backfill !== null).map((r) => [r.data_interval_start, r.status])).toEqual([
      ['2024-03-02T02:00:00.000Z', 'Completed'],
      ['2024-03-02T03:00:00.000Z', 'Completed'],
    ]);
    for (const r of all.filter((x) => x.status === 'Failed')) {
      await h.request('POST', `${base}${id}/runs/${r.id}/retry/`);
    }
    await drain(s, 6);
    expect((await dest.query('SELECT count(*)::int AS n FROM broken'))[0]).toEqual({ n: 2 });
    await h.request('DELETE', `${base}${id}/`);
  });

  it('lets a running run finish when paused, skips paused windows, and backfills them on unpause', async () => {
    clock.set('2024-03-03T00:05:00Z');
    const id = await createExport('paused');
    const hours = Array.from({ length: 5 }, (_, hour) =>
      Array.from({ length: 30 }, (_, i) => ({ at: `2024-03-03T0${hour}:${String(i).padStart(2, '0')}:30Z` })),
    ).flat();
    await insertArrived(h, h.boot.project_id, hours);
    const s = schedulerFor(h);
    clock.set('2024-03-03T01:00:01Z');
    await s.tick();
    expect((await h.request('POST', `${base}${id}/pause/`)).json()).toEqual({ paused: true });
    await s.idle();
    expect((await runs(id))[0]).toMatchObject({ status: 'Completed', records_completed: 30 });

    clock.set('2024-03-03T03:30:00Z');
    await drain(s);
    expect(await runs(id)).toHaveLength(1);
    await h.request('POST', `${base}${id}/unpause/`, { body: { backfill: true } });
    clock.set('2024-03-03T04:00:01Z');
    await drain(s, 5);
    const done = await runs(id, '&ordering=data_interval_start');
    expect(done.map((r) => [r.data_interval_start, r.status, r.records_completed])).toEqual([
      ['2024-03-03T00:00:00.000Z', 'Completed', 30],
      ['2024-03-03T01:00:00.000Z', 'Completed', 30],
      ['2024-03-03T02:00:00.000Z', 'Completed', 30],
      ['2024-03-03T03:00:00.000Z', 'Completed', 30],
    ]);
    expect((await dest.query('SELECT count(*)::int AS n FROM paused'))[0]).toEqual({ n: 120 });
    await h.request('DELETE', `${base}${id}/`);
  });

  it('gives each window to one node, and retries a window whose node died', async () => {
    clock.set('2024-03-04T00:05:00Z');
    const id = await createExport('leases', { interval: 'every 15 minutes' });
    await insertArrived(
      h,
      h.boot.project_id,
      Array.from({ length: 16 }, (_, i) => ({
        at: `2024-03-04T0${Math.floor(i / 4)}:${String((i % 4) * 15 + 1).padStart(2, '0')}:00Z`,
      })),
    );
    const a = schedulerFor(h);
    const b = schedulerFor(h);
    clock.set('2024-03-04T01:00:01Z');
    await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
    await Promise.all([a.idle(), b.idle()]);
    await drain(a, 2);
    const done = await runs(id, '&ordering=data_interval_start');
    expect(done.map((r) => r.data_interval_start)).toEqual([
      '2024-03-04T00:00:00.000Z',
      '2024-03-04T00:15:00.000Z',
      '2024-03-04T00:30:00.000Z',
      '2024-03-04T00:45:00.000Z',
    ]);
    expect(done.every((r) => r.status === 'Completed' && r.records_completed === 1)).toBe(true);

    // A node takes the next window and dies holding it.
    clock.set('2024-03-04T01:15:01Z');
    await scheduleWindows(exportDeps(h.config, h.deps));
    const lease = new Date(clock.now().getTime() + 60_000).toISOString();
    const taken = await claimRun(h.stores.meta.db, 'dead-node', clock.now().toISOString(), lease);
    expect(taken).toMatchObject({ status: 'Running', leaseOwner: 'dead-node', attempt: 1 });
    await drain(a);
    expect((await h.request('GET', `${base}${id}/runs/${taken!.id}/`)).json().status).toBe('Running');
    clock.set('2024-03-04T01:16:02Z');
    await drain(a);
    expect((await h.request('GET', `${base}${id}/runs/${taken!.id}/`)).json()).toMatchObject({
      status: 'Completed',
      records_completed: 1,
    });
    expect((await dest.query('SELECT count(*)::int AS n FROM leases'))[0]).toEqual({ n: 5 });
    await h.request('DELETE', `${base}${id}/`);
  });

  it('cancels a queued run, and validates backfills with PostHog messages', async () => {
    clock.set('2024-03-05T00:05:00Z');
    const id = await createExport('cancelled');
    clock.set('2024-03-05T01:00:01Z');
    await scheduleWindows(exportDeps(h.config, h.deps));
    const [queued] = await runs(id);
    expect(queued).toMatchObject({ status: 'Starting' });
    expect((await h.request('POST', `${base}${id}/runs/${queued!.id}/cancel/`)).json()).toEqual({
      cancelled: true,
    });
    await drain(schedulerFor(h));
    expect((await runs(id))[0]).toMatchObject({ status: 'Cancelled' });

    const backfill = (body: object) => h.request('POST', `${base}${id}/backfills/`, { body });
    const detail = async (body: object) => (await backfill(body)).json().detail;
    expect(await detail({ start_at: '2024-03-01T00:00:00', end_at: '2024-03-02T00:00:00Z' })).toBe(
      'Input 2024-03-01T00:00:00 is naive.',
    );
    expect(await detail({ start_at: 'soon', end_at: '2024-03-02T00:00:00Z' })).toBe(
      'Input soon is not a valid ISO formatted datetime.',
    );
    expect(await detail({ start_at: '2024-03-02T00:00:00Z', end_at: '2024-03-01T00:00:00Z' })).toBe(
      "The initial backfill datetime 'start_at' happens after 'end_at'",
    );
    expect(await detail({ start_at: '2024-03-01T00:00:00Z', end_at: '2024-03-06T00:00:00Z' })).toMatch(
      /is too far into the future\. Cannot backfill beyond 1 batch period into the future\.$/,
    );
    expect(await detail({ start_at: '2024-03-01T00:00:00Z' })).toBe(
      'Backfilling a BatchExport with no end date is not allowed',
    );
    expect(await detail({ start_at: '2020-01-01T00:00:00Z', end_at: '2020-01-02T00:00:00Z' })).toMatch(
      /^The provided backfill date range contains no data\. The earliest possible backfill start date is 2024-03-01 /,
    );
    const ok = await backfill({ start_at: '2024-03-01T10:00:00Z', end_at: '2024-03-01T12:00:00Z' });
    expect(ok.json()).toEqual({
      backfill_id: `${id}-Backfill-2024-03-01T10:00:00+00:00-2024-03-01T12:00:00+00:00`,
    });
    const listed = (await h.request('GET', `${base}${id}/backfills/`)).json();
    expect(listed).toMatchObject({ next: null, previous: null });
    expect(listed.results[0]).toMatchObject({
      status: 'Starting',
      progress: { total_runs: 2, finished_runs: 0, progress: 0 },
    });
    const cancel = await h.request('POST', `${base}${id}/backfills/${listed.results[0].id}/cancel/`);
    expect(cancel.json()).toEqual({ cancelled: true });
    const again = await h.request('POST', `${base}${id}/backfills/${listed.results[0].id}/cancel/`);
    expect(again.json().detail).toBe("Cannot cancel a backfill that is in 'Cancelled' status");
    const missing = await h.request('POST', `${base}00000000-0000-4000-8000-000000000000/backfills/`, {
      body: {},
    });
    expect(missing.json().detail).toBe('BatchExport not found.');
    await h.request('DELETE', `${base}${id}/`);
  });

  it('applies filters and include/exclude lists, and exports the persons and sessions models', async () => {
    clock.set('2024-03-06T00:05:00Z');
    const at = '2024-03-06T00:10:00Z';
    const rows = [
      { at, event: 'pageview', properties: { $browser: 'Firefox', $session_id: 's1' } },
      { at, event: 'pageview', properties: { $browser: 'Chrome', $session_id: 's1' } },
      { at, event: 'skip', properties: { $browser: 'Firefox', $session_id: 's1' } },
      { at, event: 'pageview', properties: { $browser: 'Firefox', n: 5, $session_id: 's2' } },
    ];
    const uuids = await insertArrived(h, h.boot.project_id, rows);
    const person = '11111111-2222-4333-8444-555555555555';
    await h.stores.events.insert('person', [
      {
        id: person,
        team_id: h.boot.project_id,
        properties: '{"email":"a@b.c"}',
        is_identified: 1,
        created_at: '2024-03-06 00:00:00.000',
        version: 1,
        _timestamp: '2024-03-06 00:20:00.000000',
      },
    ]);
    await h.stores.events.insert('person_distinct_id2', [
      { team_id: h.boot.project_id, distinct_id: 'alias-1', person_id: person, version: 1 },
      { team_id: h.boot.project_id, distinct_id: 'alias-2', person_id: person, version: 1 },
    ]);
    const filtered = await createExport('filtered', {
      filters: [{ key: '$browser', operator: 'exact', type: 'event', value: ['Firefox'] }],
      destination: {
        type: 'Postgres',
        config: { ...dest.config, table_name: 'filtered', exclude_events: ['skip'] },
      },
    });
    const sessions = await createExport('sessions', { model: 'sessions' });
    const persons = await createExport('persons', { model: 'persons' });
    clock.set('2024-03-06T01:00:01Z');
    await drain(schedulerFor(h), 3);
    expect(
      (await dest.query<{ uuid: string }>('SELECT uuid::text FROM filtered')).map((r) => r.uuid).sort(),
    ).toEqual([uuids[0], uuids[3]].sort());
    expect(
      await dest.query(
        'SELECT session_id, event_count::int, pageview_count::int FROM sessions ORDER BY session_id',
      ),
    ).toEqual([
      { session_id: 's1', event_count: 3, pageview_count: 0 },
      { session_id: 's2', event_count: 1, pageview_count: 0 },
    ]);
    expect((await runs(persons))[0]).toMatchObject({
      status: 'Completed',
      records_completed: 1,
      latest_error: null,
    });
    const [exported] = await dest.query<Record<string, unknown>>('SELECT * FROM persons');
    expect(exported).toMatchObject({
      person_id: person,
      properties: { email: 'a@b.c' },
      is_identified: true,
      is_deleted: false,
    });
    expect((exported!.distinct_ids as string[]).sort()).toEqual(['alias-1', 'alias-2']);
    for (const id of [filtered, sessions, persons]) await h.request('DELETE', `${base}${id}/`);
  });
});
