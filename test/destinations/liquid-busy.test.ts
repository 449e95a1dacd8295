import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { destinationSink } from '../helpers/http-sink.js';

async function waitUntil<T>(what: string, check: () => Promise<T | false | undefined>, ms = 20_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Liquid's worker pool full (one worker, one waiting render): deliveries whose render finds the
 * queue full are tried again later, like a 5xx, instead of being dropped as a template error.
 */
describe(`Liquid renders when the pool is busy (${backend})`, () => {
  let h: Harness;
  let sink: Awaited<ReturnType<typeof destinationSink>>;
  beforeAll(async () => {
    h = await startHarness({
      BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS: 'true',
      DESTINATIONS_POLL_MS: '50',
      DESTINATIONS_RETRY_BASE_MS: '200',
      DESTINATIONS_LIQUID_WORKERS: '1',
      DESTINATIONS_LIQUID_QUEUE: '1',
    });
    sink = await destinationSink();
  });
  afterAll(async () => {
    await sink?.close();
    await h?.close();
  });

  // Three at once: while the worker starts, one waits and two find the queue full; their retries
  // (two at most) fit the warm worker and its one waiting place.
  it('retries a delivery whose Liquid render found the queue full', async () => {
    const base = `/api/projects/${h.boot.project_id}/hog_functions/`;
    const created = await h.request('POST', base, {
      body: {
        template_id: 'template-webhook',
        enabled: true,
        inputs: {
          url: { value: sink.url },
          body: { value: { n: '{{ event.properties.n | plus: 0 }}' }, templating: 'liquid' },
        },
        filters: { events: [{ id: 'lb-burst', type: 'events' }] },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    const res = await h.request('POST', '/batch/', {
      key: null,
      body: {
        api_key: h.boot.project_api_key,
        batch: Array.from({ length: 3 }, (_, n) => ({
          uuid: randomUUID(),
          event: 'lb-burst',
          distinct_id: `u${n}`,
          properties: { n },
        })),
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    await waitUntil('three deliveries', async () => sink.received.length >= 3);
    expect(sink.received.map((r) => Number(JSON.parse(r.body).n)).sort()).toEqual([0, 1, 2]);
    const lines = await waitUntil('the retry logged', async () => {
      const l = (await h.request('GET', `${base}${id}/logs/?level=WARN`)).json().results as Array<{
        message: string;
      }>;
      return l.length > 0 && l;
    });
    // Newest first: a render may have met the full queue on its second try too.
    expect(lines.map((l) => l.message)).toContainEqual(
      expect.stringMatching(/^Rendering the inputs failed \(attempt 1 of 3\): .*too many Liquid/),
    );
  });
});
