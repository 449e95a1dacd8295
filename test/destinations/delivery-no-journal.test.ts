import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { destinationSink } from '../helpers/http-sink.js';

/** With `CAPTURE_JOURNAL=off` the matcher runs in the group commit, before capture answers. */
describe(`destination delivery without the capture journal (${backend})`, () => {
  let h: Harness;
  let sink: Awaited<ReturnType<typeof destinationSink>>;
  beforeAll(async () => {
    h = await startHarness({
      CAPTURE_JOURNAL: 'false',
      BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS: 'true',
      DESTINATIONS_POLL_MS: '50',
    });
    sink = await destinationSink();
  });
  afterAll(async () => {
    await sink?.close();
    await h?.close();
  });

  it('queues the event before answering, and delivers it', async () => {
    const base = `/api/projects/${h.boot.project_id}/hog_functions/`;
    const created = await h.request('POST', base, {
      body: {
        template_id: 'template-webhook',
        enabled: true,
        inputs: { url: { value: sink.url }, body: { value: { uuid: '{event.uuid}' } } },
        filters: { events: [{ id: 'nj-event' }] },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const uuid = randomUUID();
    const res = await h.request('POST', '/batch/', {
      key: null,
      body: { api_key: h.boot.project_api_key, batch: [{ event: 'nj-event', distinct_id: 'x', uuid }] },
    });
    expect(res.statusCode).toBe(200);
    const queued = await h.stores.meta.db.selectFrom('hog_queue').select('event_uuid').execute();
    const sent = sink.received.map((r) => JSON.parse(r.body).uuid);
    // Answered only once queued: either still in the queue or already at the sink.
    expect([...queued.map((q) => q.event_uuid), ...sent]).toContain(uuid);
    const end = Date.now() + 15_000;
    while (sink.received.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(sink.received.map((r) => JSON.parse(r.body).uuid)).toEqual([uuid]);
  });
});
