import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ExportingServer, exportingServer, waitUntil } from '../helpers/export-child.js';
import { createDestinationDb, type DestinationDb } from '../helpers/export-destinations.js';
import { backend } from '../helpers/harness.js';

/**
 * kill -9 in the middle of a run: after a restart the run's lease expires, the window is taken up
 * again and finishes; the destination ends with every event exactly once.
 */
describe(`batch export runs survive kill -9 (${backend})`, () => {
  let dest: DestinationDb;
  let node: ExportingServer;
  // Small pages and a short lease: the run takes a while and a dead node's hold runs out quickly.
  const tuning = { BATCH_EXPORTS_PAGE_ROWS: '500', BATCH_EXPORTS_LEASE_MS: '1500' };

  beforeAll(async () => {
    dest = await createDestinationDb();
    node = await exportingServer(tuning);
  }, 90_000);
  afterAll(async () => {
    await node?.close();
    await dest?.drop();
  });

  it('retries the window a killed node was exporting, and loses or duplicates nothing', async () => {
    const uuids = await node.capture(40_000, 2000);
    const project = node.boot.project_id;
    const base = `/api/projects/${project}/batch_exports/`;
    const created = await node.api('POST', base, {
      name: 'durable',
      interval: 'hour',
      destination: { type: 'Postgres', config: { ...dest.config, table_name: 'durable' } },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const now = Date.now();
    const hour = 3600_000;
    await node.api('POST', `${base}${id}/backfills/`, {
      start_at: new Date(Math.floor(now / hour) * hour - hour).toISOString(),
      end_at: new Date(Math.floor(now / hour) * hour + hour).toISOString(),
    });
    const running = await waitUntil('a run in progress', async () => {
      const runs = (await node.api('GET', `${base}${id}/runs/`)).body.results;
      return runs.find(
        (r: { status: string; records_completed: number }) =>
          r.status === 'Running' && r.records_completed > 0,
      );
    });
    node.server.child.kill('SIGKILL');
    await node.server.exited;
    const partial = (await dest.query<{ n: number }>('SELECT count(*)::int AS n FROM durable'))[0]!.n;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(uuids.length);

    await node.start(tuning);
    const done = await waitUntil(
      'the run to complete after restart',
      async () => {
        const run = (await node.api('GET', `${base}${id}/runs/${running.id}/`)).body;
        return run.status === 'Completed' && run;
      },
      90_000,
    );
    expect(done.records_completed).toBe(uuids.length);
    const rows = await dest.query<{ n: number; distinct: number }>(
      'SELECT count(*)::int AS n, count(DISTINCT uuid)::int AS distinct FROM durable',
    );
    expect(rows[0]).toEqual({ n: uuids.length, distinct: uuids.length });
    const exported = await dest.query<{ uuid: string }>('SELECT uuid::text FROM durable');
    expect(new Set(exported.map((r) => r.uuid))).toEqual(new Set(uuids));
  }, 180_000);
});
