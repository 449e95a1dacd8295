import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { capture, type RawEvent, uuid } from '../helpers/query-lists.js';

/** Flags whose conditions name cohorts, evaluated through the cohorts module on a real server. */
describe(`feature flags on cohorts (${backend})`, () => {
  let h: Harness;
  let project: number;
  const ev = (event: string, distinct_id: string, properties: Record<string, unknown> = {}): RawEvent => ({
    event,
    distinct_id,
    timestamp: new Date(Date.now() - 3_600_000).toISOString(),
    uuid: uuid(),
    properties,
  });

  beforeAll(async () => {
    h = await startHarness();
    project = h.boot.project_id;
    await capture(h, h.boot.project_api_key, project, [
      ev('$pageview', 'pro-user', { $set: { plan: 'pro' } }),
      ev('purchase', 'buyer'),
      ev('purchase', 'buyer'),
      ev('$pageview', 'free-user', { $set: { plan: 'free' } }),
    ]);
  });
  afterAll(async () => h?.close());

  async function cohort(body: unknown): Promise<number> {
    const res = await h.request('POST', `/api/projects/${project}/cohorts/`, { body });
    expect(res.statusCode).toBe(201);
    const id = res.json().id as number;
    const deadline = Date.now() + 20_000;
    for (;;) {
      const c = (await h.request('GET', `/api/projects/${project}/cohorts/${id}/`)).json();
      if (c.last_calculation && !c.is_calculating) return id;
      if (Date.now() > deadline) throw new Error(JSON.stringify(c));
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function flagOn(key: string, cohortId: number) {
    const res = await h.request('POST', `/api/projects/${project}/feature_flags/`, {
      body: {
        key,
        filters: {
          groups: [{ properties: [{ type: 'cohort', key: 'id', value: cohortId }], rollout_percentage: 100 }],
        },
      },
    });
    expect(res.statusCode).toBe(201);
  }

  async function flagsFor(distinctId: string) {
    const res = await h.app.inject({
      method: 'POST',
      url: '/flags/?v=2',
      payload: { token: h.boot.project_api_key, distinct_id: distinctId },
    });
    expect(res.statusCode).toBe(200);
    return res.json() as { flags: Record<string, { enabled: boolean }>; errorsWhileComputingFlags: boolean };
  }

  it('a property cohort is matched on the person, a behavioural one on its calculated members', async () => {
    const pro = await cohort({
      name: 'Pro',
      filters: {
        properties: {
          type: 'AND',
          values: [{ type: 'person', key: 'plan', value: 'pro', operator: 'exact' }],
        },
      },
    });
    const buyers = await cohort({
      name: 'Buyers',
      filters: {
        properties: {
          type: 'AND',
          values: [
            {
              type: 'behavioral',
              key: 'purchase',
              event_type: 'events',
              value: 'performed_event_multiple',
              operator: 'gte',
              operator_value: 2,
              time_value: 30,
              time_interval: 'day',
            },
          ],
        },
      },
    });
    await flagOn('pro-feature', pro);
    await flagOn('buyer-feature', buyers);

    const proUser = await flagsFor('pro-user');
    expect(proUser.errorsWhileComputingFlags).toBe(false);
    expect(proUser.flags['pro-feature']?.enabled).toBe(true);
    expect(proUser.flags['buyer-feature']?.enabled).toBe(false);
    const buyer = await flagsFor('buyer');
    expect(buyer.flags['pro-feature']?.enabled).toBe(false);
    expect(buyer.flags['buyer-feature']?.enabled).toBe(true);
    expect((await flagsFor('free-user')).flags['pro-feature']?.enabled).toBe(false);
    // Person properties sent with the request count, as for any person-property condition.
    const sent = await h.app.inject({
      method: 'POST',
      url: '/flags/?v=2',
      payload: { token: h.boot.project_api_key, distinct_id: 'new-user', person_properties: { plan: 'pro' } },
    });
    expect(sent.json().flags['pro-feature'].enabled).toBe(true);
  });
});
