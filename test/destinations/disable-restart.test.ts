import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ExportingServer, exportingServer, waitUntil } from '../helpers/export-child.js';
import { backend } from '../helpers/harness.js';
import { destinationSink } from '../helpers/http-sink.js';

/**
 * Self-disabling keeps its clock in the metadata store: a destination that began failing before a
 * restart is disabled by the first failure after it once the window has passed, without a new
 * window of failures on the restarted node (a node-local clock would start again at zero).
 */
describe(`destination failure clock across a restart (${backend})`, () => {
  let node: ExportingServer;
  let sink: Awaited<ReturnType<typeof destinationSink>>;
  const tuning = {
    DESTINATIONS_POLL_MS: '50',
    DESTINATIONS_RETRY_BASE_MS: '50',
    DESTINATIONS_DISABLE_AFTER_MS: '4000',
  };

  beforeAll(async () => {
    sink = await destinationSink(() => ({ status: 503 }));
    node = await exportingServer(tuning);
  }, 90_000);
  afterAll(async () => {
    await node?.close();
    await sink?.close();
  });

  it('disables on the first failure after the restart once the window has passed', async () => {
    const base = `/api/projects/${node.boot.project_id}/hog_functions/`;
    const created = await node.api('POST', base, {
      template_id: 'template-webhook',
      enabled: true,
      inputs: { url: { value: sink.url }, body: { value: { uuid: '{event.uuid}' } } },
      filters: { events: [{ id: 'exported', type: 'events' }] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    await node.capture(1);
    await waitUntil('the first failures', async () => sink.received.length >= 3, 30_000);
    const firstFailure = Date.now();
    node.server.child.kill('SIGTERM');
    await node.server.exited;
    await node.start(tuning);
    const f = await node.api('GET', `${base}${id}/`);
    expect(f.body.enabled).toBe(true);
    // Past the window since the first failure: one more failing event is enough.
    const wait = firstFailure + 4500 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const before = sink.received.length;
    await node.capture(1);
    await waitUntil('the next failure', async () => sink.received.length > before, 30_000);
    await waitUntil(
      'the destination disabled',
      async () => (await node.api('GET', `${base}${id}/`)).body.enabled === false,
      5_000,
    );
    await waitUntil(
      'the log line',
      async () =>
        ((await node.api('GET', `${base}${id}/logs/`)).body.results as Array<{ message: string }>).some((l) =>
          /Function disabled/.test(l.message),
        ),
      5_000,
    );
  }, 180_000);
});
