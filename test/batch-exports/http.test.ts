import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ExportingServer, exportingServer, waitUntil } from '../helpers/export-child.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * One Burrow (a child process) exports over HTTP to another (this process, listening on loopback):
 * the events arrive through the second one's capture and are queryable in its events store.
 */
describe(`batch exports over HTTP to another Burrow (${backend})`, () => {
  let receiver: Harness;
  let receiverUrl: string;
  let sender: ExportingServer;

  beforeAll(async () => {
    receiver = await startHarness({ BATCH_EXPORTS_SCHEDULER: 'false', INGEST_BATCH_DELAY_MS: '5' });
    receiverUrl = await receiver.app.listen({ host: '127.0.0.1', port: 0 });
    sender = await exportingServer({ BATCH_EXPORTS_PAGE_ROWS: '700' });
  }, 90_000);
  afterAll(async () => {
    await sender?.close();
    await receiver?.close();
  });

  const received = async (uuids: string[]) => {
    const rows = await receiver.stores.events.query<{ n: number; teams: number[] }>(
      `SELECT uniqExact(uuid) AS n, groupUniqArray(team_id) AS teams FROM ${receiver.stores.events.table('events')}
       WHERE uuid IN {uuids:Array(UUID)}`,
      { params: { uuids } },
    );
    return rows[0]!;
  };

  it('delivers every event once to the destination project, and a retry adds no duplicate', async () => {
    const uuids = await sender.capture(2500);
    const project = sender.boot.project_id;
    const created = await sender.api('POST', `/api/projects/${project}/batch_exports/`, {
      name: 'to receiver',
      interval: 'every 5 minutes',
      destination: {
        type: 'HTTP',
        config: { url: `${receiverUrl}/batch/`, token: receiver.boot.project_api_key },
      },
    });
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body)).not.toContain(receiver.boot.project_api_key);
    const id = created.body.id;
    const backfill = await sender.api('POST', `/api/projects/${project}/batch_exports/${id}/backfills/`, {
      start_at: new Date(Date.now() - 3600_000).toISOString(),
    });
    expect(backfill.status).toBe(200);
    expect(backfill.body.backfill_id).toMatch(new RegExp(`^${id}-Backfill-.+-END$`));
    await waitUntil('the backfill to complete', async () => {
      const list = await sender.api('GET', `/api/projects/${project}/batch_exports/${id}/backfills/`);
      return list.body.results[0]?.status === 'Completed';
    });
    expect(await received(uuids)).toEqual({ n: 2500, teams: [receiver.boot.project_id] });
    const runs = (await sender.api('GET', `/api/projects/${project}/batch_exports/${id}/runs/`)).body.results;
    expect(runs.reduce((n: number, r: { records_completed: number }) => n + r.records_completed, 0)).toBe(
      2500,
    );

    // Exported again: the receiver counts each event once (same uuid).
    const run = runs.find((r: { records_completed: number }) => r.records_completed > 0);
    await sender.api('POST', `/api/projects/${project}/batch_exports/${id}/runs/${run.id}/retry/`);
    await waitUntil('the retry', async () => {
      const list = await sender.api('GET', `/api/projects/${project}/batch_exports/${id}/backfills/`);
      return list.body.results.every((b: { status: string }) => b.status === 'Completed');
    });
    const counted = await receiver.stores.events.query<{ n: number }>(
      `SELECT count() AS n FROM ${receiver.stores.events.table('events')} FINAL WHERE uuid IN {uuids:Array(UUID)}`,
      { params: { uuids } },
    );
    expect(counted[0]!.n).toBe(2500);
  });

  it('fails a run at once when the destination refuses the token, and tests the destination', async () => {
    const project = sender.boot.project_id;
    const base = `/api/projects/${project}/batch_exports/`;
    const created = await sender.api('POST', base, {
      name: 'bad token',
      interval: 'every 5 minutes',
      destination: { type: 'HTTP', config: { url: `${receiverUrl}/batch/`, token: 'phc_notarealtoken' } },
    });
    await sender.api('POST', `${base}${created.body.id}/backfills/`, {
      start_at: new Date(Date.now() - 600_000).toISOString(),
    });
    const failed = await waitUntil('the run to fail', async () => {
      const runs = (await sender.api('GET', `${base}${created.body.id}/runs/`)).body.results;
      return runs.find((r: { status: string }) => r.status === 'Failed');
    });
    expect(failed.latest_error).toMatch(/^The destination answered 401/);

    const step = (n: number, token: string) =>
      sender.api(
        'POST',
        `/api/organizations/${sender.boot.organization_id}/batch_exports/run_test_step_new/`,
        {
          name: 't',
          interval: 'hour',
          destination: { type: 'HTTP', config: { url: `${receiverUrl}/batch/`, token } },
          step: n,
        },
      );
    expect((await step(0, 'x')).body.result).toEqual({ status: 'Passed', message: null });
    expect((await step(1, receiver.boot.project_api_key)).body.result).toEqual({
      status: 'Passed',
      message: null,
    });
    expect((await step(1, 'phc_notarealtoken')).body.result).toEqual({
      status: 'Failed',
      message: 'The destination does not accept this project API token',
    });
  });
});
