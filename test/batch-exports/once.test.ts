import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drain, insertArrived, schedulerFor, testClock } from '../helpers/export-fixtures.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * A window is exported once per export: a backfill and the schedule never both deliver it, only an
 * explicit retry does. The sink is a real HTTP server on loopback that counts every event it gets
 * (no dedup by uuid, so a second delivery shows).
 */
describe(`batch exports deliver each window once (${backend})`, () => {
  const clock = testClock('2024-05-01T10:20:00Z');
  let h: Harness;
  let sink: Server;
  let sinkUrl: string;
  // Deliveries per export (each export posts to its own path) and event uuid.
  const deliveries = new Map<string, number>();
  const delivered = (name: string, uuids: string[]) => uuids.map((u) => deliveries.get(`${name}/${u}`) ?? 0);

  beforeAll(async () => {
    h = await startHarness(
      {
        BATCH_EXPORTS_SCHEDULER: 'false',
        BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS: 'true',
        BATCH_EXPORTS_SETTLE_MS: '0',
        BATCH_EXPORTS_RETRY_BASE_MS: '0',
      },
      { now: clock.now },
    );
    sink = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let raw = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
        const body = JSON.parse(raw.toString('utf8')) as { batch?: Array<{ uuid: string }> };
        const name = decodeURIComponent(req.url!.split('/')[1]!);
        for (const e of body.batch ?? []) {
          deliveries.set(`${name}/${e.uuid}`, (deliveries.get(`${name}/${e.uuid}`) ?? 0) + 1);
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"Ok"}');
      });
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    sinkUrl = `http://127.0.0.1:${(sink.address() as { port: number }).port}`;
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await new Promise((r) => sink?.close(r));
  });

  const base = () => `/api/projects/${h.boot.project_id}/batch_exports/`;
  const createExport = async (name: string) => {
    const res = await h.request('POST', base(), {
      body: {
        name,
        interval: 'hour',
        destination: {
          type: 'HTTP',
          config: { url: `${sinkUrl}/${encodeURIComponent(name)}/batch/`, token: 'phc_sinktoken' },
        },
      },
    });
    expect(res.statusCode).toBe(201);
    return res.json().id as string;
  };
  const runsOf = async (id: string) =>
    (await h.request('GET', `${base()}${id}/runs/?after=2000-01-01T00:00:00Z`)).json().results as Array<{
      id: string;
      status: string;
      data_interval_start: string;
      data_interval_end: string;
      records_completed: number;
    }>;

  it('a backfill of the current window, then the scheduled run of it: each event arrives once', async () => {
    clock.set('2024-05-01T10:20:00Z');
    const scheduler = schedulerFor(h);
    const early = await insertArrived(
      h,
      h.boot.project_id,
      Array.from({ length: 1001 }, (_, i) => ({
        at: `2024-05-01T10:${String(5 + (i % 10)).padStart(2, '0')}:00Z`,
      })),
    );
    const id = await createExport('current window');
    const backfill = await h.request('POST', `${base()}${id}/backfills/`, {
      body: { start_at: '2024-05-01T09:00:00Z' },
    });
    expect(backfill.statusCode).toBe(200);
    await drain(scheduler, 3);
    expect(delivered('current window', early).every((n) => n === 1)).toBe(true);

    // Later in the same window more events arrive; the window then ends and the schedule runs it.
    const late = await insertArrived(h, h.boot.project_id, [
      { at: '2024-05-01T10:30:00Z' },
      { at: '2024-05-01T10:40:00Z' },
    ]);
    clock.set('2024-05-01T11:00:01Z');
    await drain(scheduler, 3);
    expect(delivered('current window', early).every((n) => n === 1)).toBe(true);
    expect(delivered('current window', late)).toEqual([1, 1]);
    const runs = await runsOf(id);
    expect(runs.reduce((n, r) => n + r.records_completed, 0)).toBe(1003);
    expect(runs.every((r) => r.status === 'Completed')).toBe(true);
    expect((await h.request('POST', `${base()}${id}/pause/`)).statusCode).toBe(200);
  });

  it('a backfill over windows the schedule delivered skips them; a retry of the run delivers again', async () => {
    clock.set('2024-05-02T10:10:00Z');
    const scheduler = schedulerFor(h);
    const id = await createExport('scheduled first');
    const uuids = await insertArrived(h, h.boot.project_id, [
      { at: '2024-05-02T10:15:00Z' },
      { at: '2024-05-02T10:25:00Z' },
    ]);
    clock.set('2024-05-02T11:00:01Z');
    await drain(scheduler, 2);
    expect(delivered('scheduled first', uuids)).toEqual([1, 1]);

    const backfill = await h.request('POST', `${base()}${id}/backfills/`, {
      body: { start_at: '2024-05-02T10:00:00Z', end_at: '2024-05-02T11:00:00Z' },
    });
    expect(backfill.statusCode).toBe(200);
    await drain(scheduler, 3);
    expect(delivered('scheduled first', uuids)).toEqual([1, 1]);
    const list = (await h.request('GET', `${base()}${id}/backfills/`)).json().results;
    expect(list[0].status).toBe('Completed');

    // Someone asks for the window again: that is the one way it is delivered twice.
    const run = (await runsOf(id)).find((r) => r.data_interval_start.startsWith('2024-05-02T10:00:00'))!;
    const retry = await h.request('POST', `${base()}${id}/runs/${run.id}/retry/`);
    expect(retry.statusCode).toBe(200);
    await drain(scheduler, 3);
    expect(delivered('scheduled first', uuids)).toEqual([2, 2]);
  });
});
