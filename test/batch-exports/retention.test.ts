import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTimestamp } from '../../src/store/events/insert.js';
import { insertEvents } from '../helpers/events-insert.js';
import { drain, schedulerFor, testClock } from '../helpers/export-fixtures.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { gzipJsonSink } from '../helpers/http-sink.js';

const OLD = '01890000-0000-7000-8000-0000000000a1';
const NEW = '01890000-0000-7000-8000-0000000000a2';

/**
 * A project's retention period holds for its exports too: an event older than the cut is never
 * exported, even while the hourly job has not deleted it yet (here it arrived late, inside the
 * run's window, with a timestamp from months before).
 */
describe(`batch exports obey the retention period (${backend})`, () => {
  const clock = testClock('2024-04-01T00:05:00Z');
  let h: Harness;
  let sink: Awaited<ReturnType<typeof gzipJsonSink>>;
  let base: string;

  beforeAll(async () => {
    sink = await gzipJsonSink();
    h = await startHarness(
      {
        BATCH_EXPORTS_SCHEDULER: 'false',
        BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS: 'true',
        BATCH_EXPORTS_SETTLE_MS: '0',
      },
      { now: clock.now },
    );
    base = `/api/projects/${h.boot.project_id}/batch_exports/`;
    const at = formatTimestamp(new Date('2024-04-01T00:10:00Z'));
    const row = (uuid: string, timestamp: string) => ({
      uuid,
      event: 'signup',
      properties: '{}',
      timestamp: formatTimestamp(new Date(timestamp)),
      team_id: h.boot.project_id,
      distinct_id: 'u1',
      inserted_at: at,
    });
    await insertEvents(h.stores.events, [row(OLD, '2024-01-05T00:00:00Z'), row(NEW, '2024-03-31T23:00:00Z')]);
    const res = await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, {
      body: { events_retention_days: 30 },
    });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  async function exportWith(name: string, extra: Record<string, unknown>) {
    sink.posted.length = 0;
    clock.set('2024-04-01T00:05:00Z');
    const res = await h.request('POST', base, {
      body: {
        name,
        destination: { type: 'HTTP', config: { url: sink.url, token: 'phc_target' } },
        interval: 'hour',
        ...extra,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    clock.set('2024-04-01T01:00:01Z');
    await drain(schedulerFor(h));
    const runs = (await h.request('GET', `${base}${res.json().id}/runs/?after=2000-01-01T00:00:00Z`)).json();
    await h.request('DELETE', `${base}${res.json().id}/`);
    return {
      run: runs.results[0],
      uuids: sink.posted.flatMap((b) => (b.batch as Array<{ uuid: string }>).map((e) => e.uuid)),
    };
  }

  it('leaves events older than the cut out of an events export', async () => {
    const { run, uuids } = await exportWith('events', { model: 'events' });
    expect(run).toMatchObject({ status: 'Completed', records_completed: 1 });
    expect(uuids).toEqual([NEW]);
  });

  it('leaves them out of a hogql_query export too', async () => {
    const { run, uuids } = await exportWith('query', {
      hogql_query: 'SELECT uuid, event, distinct_id, timestamp FROM events',
    });
    expect(run).toMatchObject({ status: 'Completed', records_completed: 1 });
    expect(uuids).toEqual([NEW]);
  });
});
