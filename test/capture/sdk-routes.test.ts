import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * The routes current posthog-node versions post to besides `/batch/`: capture v1
 * (`POSTHOG_CAPTURE_MODE=v1`, `/i/v1/analytics/events`) and `captureLog` (`/i/v1/logs`), with the
 * unmodified client against a real server on loopback; what they sent is read back through HogQL.
 */
describe(`posthog-node capture v1 and captureLog (${backend})`, () => {
  let h: Harness;
  let base: string;
  const errors: unknown[] = [];
  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** The client reads the mode from the environment when it is made. */
  function v1Client(options: ConstructorParameters<typeof PostHog>[1] = {}): PostHog {
    const before = process.env.POSTHOG_CAPTURE_MODE;
    process.env.POSTHOG_CAPTURE_MODE = 'v1';
    try {
      const client = new PostHog(h.boot.project_api_key, {
        host: base,
        flushAt: 50,
        flushInterval: 0,
        ...options,
      });
      client.on('error', (e) => errors.push(e));
      return client;
    } finally {
      if (before === undefined) delete process.env.POSTHOG_CAPTURE_MODE;
      else process.env.POSTHOG_CAPTURE_MODE = before;
    }
  }

  async function hogql(query: string): Promise<unknown[][]> {
    const res = await h.request('POST', `/api/projects/${h.boot.project_id}/query/`, {
      body: { query: { kind: 'HogQLQuery', query } },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().results;
  }

  it('stores v1 events with their session, options and SDK, one person per identified user', async () => {
    const client = v1Client();
    client.capture({
      distinctId: 'v1-user',
      event: 'v1 signup',
      properties: { plan: 'pro', $session_id: 'sess-1', $process_person_profile: true },
    });
    client.identify({ distinctId: 'v1-user', properties: { email: 'v1@example.com' } });
    for (let i = 0; i < 20; i++)
      client.capture({ distinctId: `v1-bulk-${i % 2}`, event: 'v1 bulk', properties: { i } });
    await client.shutdown();
    expect(errors).toEqual([]);

    const rows = await hogql(
      "SELECT event, properties.plan, properties.$session_id, properties.$lib, toString(properties.$process_person_profile), person.properties.email FROM events WHERE event IN ('v1 signup') ORDER BY timestamp",
    );
    // `$process_person_profile: true` is the default, and ingestion drops it as PostHog's does.
    expect(rows).toEqual([['v1 signup', 'pro', 'sess-1', 'posthog-node', null, 'v1@example.com']]);
    const counts = await hogql(
      "SELECT event, count() FROM events WHERE event IN ('v1 bulk', '$identify') GROUP BY event ORDER BY event",
    );
    expect(counts).toEqual([
      ['$identify', 1],
      ['v1 bulk', 20],
    ]);
  });

  it('stores captureLog records in the logs table, queryable in HogQL', async () => {
    const client = new PostHog(h.boot.project_api_key, {
      host: base,
      flushAt: 50,
      flushInterval: 0,
      logs: { serviceName: 'checkout-api' },
    } as never);
    client.on('error', (e) => errors.push(e));
    client.captureLog({ body: 'order placed', level: 'info', attributes: { order_id: 'o-1', total: 42 } });
    client.logger.error('payment failed', { order_id: 'o-2' });
    client.logger.warn('slow response');
    await client.shutdown();
    expect(errors).toEqual([]);

    const rows = await hogql(
      'SELECT body, level, severity_text, severity_number, attributes.order_id, service_name, instrumentation_scope FROM logs ORDER BY severity_number',
    );
    expect(rows).toEqual([
      ['order placed', 'info', 'INFO', 9, 'o-1', 'checkout-api', 'posthog-node'],
      ['slow response', 'warn', 'WARN', 13, null, 'checkout-api', 'posthog-node'],
      ['payment failed', 'error', 'ERROR', 17, 'o-2', 'checkout-api', 'posthog-node'],
    ]);
    const [[total]] = (await hogql("SELECT count() FROM logs WHERE attributes.total = '42'")) as [[number]];
    expect(total).toBe(1);
  });
});
