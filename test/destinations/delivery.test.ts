import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { destinationSink } from '../helpers/http-sink.js';

type Sink = Awaited<ReturnType<typeof destinationSink>>;

async function waitUntil<T>(
  what: string,
  check: () => Promise<T | false | undefined>,
  ms = 20_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Delivery after capture, end to end: events captured through `/batch/` reach a real loopback
 * HTTP sink through the queue and the workers (retries, masking, logs, metrics, self-disabling).
 */
describe(`destination delivery (${backend})`, () => {
  let h: Harness;
  let base: string;
  const sinks: Sink[] = [];
  beforeAll(async () => {
    h = await startHarness({
      BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS: 'true',
      DESTINATIONS_POLL_MS: '50',
      DESTINATIONS_RETRY_BASE_MS: '50',
      DESTINATIONS_TIMEOUT_MS: '3000',
      DESTINATIONS_DISABLE_AFTER_MS: '1500',
    });
    base = `/api/projects/${h.boot.project_id}/hog_functions/`;
  });
  afterAll(async () => {
    for (const s of sinks) await s.close();
    await h?.close();
  });

  const sink = async (answer?: Parameters<typeof destinationSink>[0]) => {
    const s = await destinationSink(answer);
    sinks.push(s);
    return s;
  };

  async function destination(url: string, body: unknown, extra: Record<string, unknown> = {}) {
    const res = await h.request('POST', base, {
      body: {
        template_id: 'template-webhook',
        enabled: true,
        inputs: { url: { value: url }, body: { value: body } },
        ...extra,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  }

  async function capture(events: Array<{ event: string; distinct_id: string; properties?: object }>) {
    const started = performance.now();
    const res = await h.request('POST', '/batch/', {
      key: null,
      body: {
        api_key: h.boot.project_api_key,
        batch: events.map((e) => ({ uuid: randomUUID(), properties: {}, ...e })),
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    return performance.now() - started;
  }

  const totals = async (id: string) =>
    (await h.request('GET', `${base}${id}/metrics/totals/?breakdown_by=name`)).json().totals as Record<
      string,
      number
    >;
  const logs = async (id: string) =>
    (await h.request('GET', `${base}${id}/logs/`)).json().results as Array<{
      level: string;
      message: string;
      instance_id: string;
      log_source_id: string;
    }>;

  it('delivers each matching event once, with the rendered body; filters hold', async () => {
    const s = await sink();
    const id = await destination(
      `${s.url}/hook`,
      { name: '{event.event}', plan: '{event.properties.plan}', email: '{person.properties.email}' },
      {
        filters: {
          events: [{ id: 'dd-upgraded', type: 'events' }],
          properties: [{ key: 'plan', value: 'scale', operator: 'exact', type: 'event' }],
        },
      },
    );
    await capture([
      { event: 'dd-upgraded', distinct_id: 'u1', properties: { plan: 'scale', $set: { email: 'a@x.io' } } },
      { event: 'dd-upgraded', distinct_id: 'u2', properties: { plan: 'scale' } },
      { event: 'dd-upgraded', distinct_id: 'u3', properties: { plan: 'free' } },
      { event: 'dd-other', distinct_id: 'u1', properties: { plan: 'scale' } },
    ]);
    await waitUntil('two deliveries', async () => s.received.length >= 2);
    await sleep(500);
    expect(s.received).toHaveLength(2);
    const bodies = s.received.map((r) => JSON.parse(r.body)).sort((a, b) => (a.email > b.email ? -1 : 1));
    expect(bodies[0]).toEqual({ name: 'dd-upgraded', plan: 'scale', email: 'a@x.io' });
    expect(bodies[1]).toMatchObject({ name: 'dd-upgraded', plan: 'scale' });
    expect(s.received[0]!.url).toBe('/hook');
    // `filtered` is counted in memory and written within 200 ms (metrics-tally.ts).
    const t = await waitUntil('metrics', async () => {
      const m = await totals(id);
      return m.succeeded === 2 && m.filtered !== undefined && m;
    });
    expect(t.filtered).toBe(2);
    const lines = await logs(id);
    expect(lines.filter((l) => l.level === 'INFO' && /answered 200/.test(l.message))).toHaveLength(2);
    expect(lines[0]!.log_source_id).toBe(id);
    const series = (await h.request('GET', `${base}${id}/metrics/?interval=day&breakdown_by=kind`)).json();
    expect(series.labels.length).toBeGreaterThan(0);
    expect(series.series.find((x: { name: string }) => x.name === 'success').values.at(-1)).toBe(2);
  });

  it('destinations with the same filters each deliver their matches; a different filter keeps its own', async () => {
    // Equal filters share one matcher per event (enqueue.ts `sharedMatchers`): each destination
    // must still get its own deliveries and its own `filtered` count.
    const [a, b, c] = [await sink(), await sink(), await sink()];
    const same = {
      events: [{ id: 'sf-signup', type: 'events' }],
      properties: [{ key: 'plan', value: 'scale', operator: 'exact', type: 'event' }],
    };
    const ids = [
      await destination(`${a.url}/a`, { to: 'a', plan: '{event.properties.plan}' }, { filters: same }),
      await destination(`${b.url}/b`, { to: 'b', plan: '{event.properties.plan}' }, { filters: same }),
      await destination(
        `${c.url}/c`,
        { to: 'c', plan: '{event.properties.plan}' },
        {
          filters: { ...same, properties: [{ ...same.properties[0], value: 'free' }] },
        },
      ),
    ];
    await capture([
      { event: 'sf-signup', distinct_id: 'u1', properties: { plan: 'scale' } },
      { event: 'sf-signup', distinct_id: 'u2', properties: { plan: 'free' } },
      { event: 'sf-signup', distinct_id: 'u3', properties: { plan: 'scale' } },
    ]);
    await waitUntil(
      'deliveries',
      async () => a.received.length >= 2 && b.received.length >= 2 && c.received.length >= 1,
    );
    await sleep(500);
    expect(a.received.map((r) => JSON.parse(r.body))).toEqual([
      { to: 'a', plan: 'scale' },
      { to: 'a', plan: 'scale' },
    ]);
    expect(b.received.map((r) => JSON.parse(r.body))).toEqual([
      { to: 'b', plan: 'scale' },
      { to: 'b', plan: 'scale' },
    ]);
    expect(c.received.map((r) => JSON.parse(r.body))).toEqual([{ to: 'c', plan: 'free' }]);
    const filtered = await Promise.all(
      ids.map((id) =>
        waitUntil('metrics', async () => (async (m) => m.filtered !== undefined && m)(await totals(id))),
      ),
    );
    expect(filtered.map((m) => m.filtered)).toEqual([1, 1, 2]);
  });

  it("matches on capture's own objects as on the stored line; a person filter reads the lines", async () => {
    // A project whose filters read only the event is matched on the objects capture decoded
    // (enqueue.ts `capturedView`); once a filter reads person properties, on the stored lines.
    const [ev, person] = [await sink(), await sink()];
    await destination(
      `${ev.url}/e`,
      { n: '{event.properties.n}' },
      {
        filters: {
          events: [{ id: 'ob-event', type: 'events' }],
          properties: [
            { key: 'n', value: 10, operator: 'gt', type: 'event' },
            { key: 'tag', value: 'A', operator: 'icontains', type: 'event' },
            { key: 'gone', operator: 'is_not_set', type: 'event' },
            { key: 'flag', value: ['true'], operator: 'exact', type: 'event' },
          ],
        },
      },
    );
    const batch = (run: string) => [
      {
        event: 'ob-event',
        distinct_id: `${run}1`,
        properties: { n: 11, tag: 'xaY', flag: true, $set: { plan: 'pro' } },
      },
      { event: 'ob-event', distinct_id: `${run}2`, properties: { n: 12, tag: 'nope', flag: true } },
      { event: 'ob-event', distinct_id: `${run}3`, properties: { n: 13, tag: 'a', flag: true, gone: 0 } },
      {
        event: 'ob-event',
        distinct_id: `${run}4`,
        properties: { n: 9, tag: 'a', flag: true, $set: { plan: 'free' } },
      },
      {
        event: 'ob-event',
        distinct_id: `${run}5`,
        properties: { n: '14', tag: 'A', flag: 'true', nested: { gone: 1 } },
      },
      {
        event: 'ob-other',
        distinct_id: `${run}6`,
        properties: { n: 15, tag: 'a', flag: true, $set: { plan: 'pro' } },
      },
    ];
    // n > 10, tag contains "a" in any case, `gone` absent at the top level, flag "true" as a
    // boolean or text; values render with their JSON type.
    const expected = [11, '14'];
    // Capture hands its objects to the matcher it calls early, once the journal knows the project
    // has destinations (read every second, live-teams.ts); before that the insert matches lines.
    await sleep(1_200);
    await capture(batch('ob-a'));
    await waitUntil('deliveries', async () => ev.received.length >= 2);
    await sleep(300);
    expect(ev.received.map((r) => JSON.parse(r.body).n).sort()).toEqual(expected);

    // Now the project's filters read person properties: the same events, matched on the lines.
    const personId = await destination(
      `${person.url}/p`,
      { n: '{event.properties.n}', plan: '{person.properties.plan}' },
      {
        filters: {
          events: [{ id: 'ob-event', type: 'events' }],
          properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }],
        },
      },
    );
    ev.received.length = 0;
    await capture(batch('ob-b'));
    await waitUntil('deliveries', async () => ev.received.length >= 2 && person.received.length >= 1);
    await sleep(300);
    expect(ev.received.map((r) => JSON.parse(r.body).n).sort()).toEqual(expected);
    expect(person.received.map((r) => JSON.parse(r.body))).toEqual([{ n: 11, plan: 'pro' }]);
    // The next tests' events go by the objects again.
    await h.request('PATCH', `${base}${personId}/`, { body: { enabled: false } });
  });

  it("never matches another project's event against this project's destinations, whatever its properties say", async () => {
    const s = await sink();
    await destination(
      `${s.url}/own`,
      { uuid: '{event.uuid}', who: '{event.properties.who}' },
      {
        filters: { events: [{ id: 'dd-tenant', type: 'events' }] },
      },
    );
    const project = await h.request('POST', `/api/organizations/${h.boot.organization_id}/projects/`, {
      body: { name: 'Other tenant' },
    });
    expect(project.statusCode, project.body).toBe(201);
    // The other project's event names this project as its `team_id` (top level and nested).
    const res = await h.request('POST', '/batch/', {
      key: null,
      body: {
        api_key: project.json().api_token,
        batch: [
          {
            event: 'dd-tenant',
            distinct_id: 'intruder',
            uuid: randomUUID(),
            properties: {
              team_id: h.boot.project_id,
              who: 'intruder',
              nested: { team_id: h.boot.project_id },
            },
          },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    await capture([{ event: 'dd-tenant', distinct_id: 'own', properties: { who: 'own' } }]);
    await waitUntil('own delivery', async () => s.received.length >= 1);
    await sleep(500);
    expect(s.received.map((r) => JSON.parse(r.body).who)).toEqual(['own']);
  });

  it('masking: one delivery per rendered key per TTL', async () => {
    const s = await sink();
    const id = await destination(
      s.url,
      { who: '{event.distinct_id}' },
      {
        filters: { events: [{ id: 'dd-masked', type: 'events' }] },
        masking: { ttl: 60, hash: '{event.distinct_id}', threshold: null },
      },
    );
    await capture([
      { event: 'dd-masked', distinct_id: 'ma' },
      { event: 'dd-masked', distinct_id: 'ma' },
      { event: 'dd-masked', distinct_id: 'mb' },
    ]);
    await capture([{ event: 'dd-masked', distinct_id: 'ma' }]);
    await waitUntil('two deliveries', async () => s.received.length >= 2);
    await sleep(500);
    expect(s.received.map((r) => JSON.parse(r.body).who).sort()).toEqual(['ma', 'mb']);
    expect((await totals(id)).masked).toBe(2);
  });

  it("masking threshold: PostHog's rule, the first and then every threshold-th in the TTL", async () => {
    const s = await sink();
    const id = await destination(
      s.url,
      { n: '{event.properties.n}' },
      {
        filters: { events: [{ id: 'dd-threshold', type: 'events' }] },
        masking: { ttl: 60, hash: '{event.properties.k}', threshold: 2 },
      },
    );
    // Counts 1 to 5 under one key: the 1st, 3rd and 5th go. A key that renders empty masks nothing.
    await capture(
      [1, 2, 3, 4, 5].map((n) => ({ event: 'dd-threshold', distinct_id: 't', properties: { k: 'same', n } })),
    );
    await capture([{ event: 'dd-threshold', distinct_id: 't', properties: { n: 6 } }]);
    await capture([{ event: 'dd-threshold', distinct_id: 't', properties: { n: 7 } }]);
    await waitUntil('five deliveries', async () => s.received.length >= 5);
    await sleep(500);
    expect(s.received.map((r) => JSON.parse(r.body).n).sort()).toEqual([1, 3, 5, 6, 7]);
    await waitUntil('the masked counted', async () => (await totals(id)).masked === 2);
  });

  it('retries a 500 with backoff, then delivers', async () => {
    const s = await sink((n) => ({ status: n <= 2 ? 500 : 200 }));
    const id = await destination(
      s.url,
      { e: '{event.event}' },
      { filters: { events: [{ id: 'dd-retry' }] } },
    );
    await capture([{ event: 'dd-retry', distinct_id: 'r1' }]);
    await waitUntil('three tries', async () => s.received.length >= 3);
    await sleep(400);
    expect(s.received).toHaveLength(3);
    expect(s.received[2]!.at - s.received[1]!.at).toBeGreaterThanOrEqual(90);
    const lines = await waitUntil('logs', async () => {
      const l = await logs(id);
      return l.some((x) => x.level === 'INFO') && l;
    });
    expect(lines.filter((l) => l.level === 'WARN' && /HTTP 500.*retrying/.test(l.message))).toHaveLength(2);
    expect(new Set(lines.map((l) => l.instance_id)).size).toBe(1);
    // Counters are written just after the log lines (the same flush).
    await waitUntil('the success counted', async () => (await totals(id)).succeeded === 1);
  });

  it('does not retry a 400, and logs it', async () => {
    const s = await sink(() => ({ status: 400 }));
    const id = await destination(s.url, { e: '{event.event}' }, { filters: { events: [{ id: 'dd-bad' }] } });
    await capture([{ event: 'dd-bad', distinct_id: 'b1' }]);
    const lines = await waitUntil('an error log', async () => {
      const l = await logs(id);
      return l.some((x) => x.level === 'ERROR') && l;
    });
    await sleep(400);
    expect(s.received).toHaveLength(1);
    expect(lines.find((l) => l.level === 'ERROR')!.message).toMatch(/not retried.*HTTP 400/);
    await waitUntil('the failure counted', async () => (await totals(id)).failed === 1);
    const levels = await h.request('GET', `${base}${id}/logs/?level=WARN`);
    expect(levels.json().results).toEqual([]);
    const bad = await h.request('GET', `${base}${id}/logs/?level=LOUD`);
    expect(bad.statusCode).toBe(400);
  });

  it('cuts off a slow answer of 100 MB at 1 MB, and logs it', async () => {
    const s = await sink(() => ({ status: 200, streamBytes: 100 * 1024 * 1024 }));
    const id = await destination(s.url, { e: '{event.event}' }, { filters: { events: [{ id: 'dd-huge' }] } });
    await capture([{ event: 'dd-huge', distinct_id: 'h1' }]);
    const lines = await waitUntil('a cut-off log', async () => {
      const l = await logs(id);
      return l.some((x) => /cut off/.test(x.message)) && l;
    });
    expect(lines.find((l) => l.level === 'WARN')!.message).toMatch(/longer than 1 MB/);
    await sleep(300);
    expect(s.streamed()).toBeLessThan(8 * 1024 * 1024);
    expect(s.received).toHaveLength(1);
  });

  it('answers capture before delivery: a slow destination does not hold it', async () => {
    const s = await sink(() => ({ status: 200, delayMs: 2000 }));
    await destination(s.url, { e: '{event.event}' }, { filters: { events: [{ id: 'dd-slow' }] } });
    await capture([{ event: 'dd-slow', distinct_id: 's1' }]);
    await waitUntil('the first delivery to start', async () => s.received.length >= 1);
    // The destination is now holding its answer: capture goes on answering at once.
    const ms = await capture([{ event: 'dd-slow', distinct_id: 's2' }]);
    expect(ms).toBeLessThan(1000);
    await waitUntil('both deliveries', async () => s.received.length >= 2, 10_000);
  });

  it('disables a destination that fails continuously for the configured window', async () => {
    const s = await sink(() => ({ status: 503 }));
    const id = await destination(s.url, { e: '{event.event}' }, { filters: { events: [{ id: 'dd-down' }] } });
    // Failures keep coming until the window has passed: the destination turns itself off.
    let i = 0;
    await waitUntil('the destination disabled', async () => {
      await capture([{ event: 'dd-down', distinct_id: `d${i++}` }]);
      await sleep(200);
      const f = (await h.request('GET', `${base}${id}/`)).json();
      return f.enabled === false;
    });
    await sleep(1500);
    const lines = await logs(id);
    expect(lines.some((l) => l.level === 'ERROR' && /Function disabled/.test(l.message))).toBe(true);
    const before = s.received.length;
    await capture([{ event: 'dd-down', distinct_id: 'after' }]);
    await sleep(500);
    expect(s.received.length).toBe(before);
  });
});
