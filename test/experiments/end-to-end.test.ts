import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { seededRandom } from '../helpers/random.js';

/**
 * End to end with a real client: posthog-node (local evaluation) assigns each simulated user a
 * variant from Burrow's flag, which sends the `$feature_flag_called` exposure; the user then
 * converts with a probability that depends on the variant. A true effect (10 % → 16 %) is found;
 * an A/A test (10 % both) is not significant.
 */
describe(`Experiments end to end with posthog-node (${backend})`, () => {
  let h: Harness;
  let url: string;
  let experiments: string;
  const clients: PostHog[] = [];
  // As many simulated users as the issue (34) names.
  const USERS = 5000;

  beforeAll(async () => {
    h = await startHarness();
    url = await h.app.listen({ host: '127.0.0.1', port: 0 });
    experiments = `/api/environments/${h.boot.project_id}/experiments/`;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.shutdown()));
    await h?.close();
  });

  /** An experiment launched an hour ago, with users assigned and converting through the SDK. */
  async function simulate(flagKey: string, rates: Record<string, number>, seed: number): Promise<number> {
    const created = await h.request('POST', experiments, {
      body: { name: flagKey, feature_flag_key: flagKey },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as number;
    const started = new Date(Date.now() - 3_600_000).toISOString();
    const launched = await h.request('PATCH', `${experiments}${id}/`, {
      body: { start_date: started, stats_config: { method: 'frequentist' } },
    });
    expect(launched.statusCode, launched.body).toBe(200);
    const c = new PostHog(h.boot.project_api_key, {
      host: url,
      personalApiKey: h.key,
      flushAt: 200,
      flushInterval: 0,
      featureFlagsPollingInterval: 600_000,
    });
    clients.push(c);
    const random = seededRandom(seed);
    const assigned: Record<string, number> = {};
    for (let i = 0; i < USERS; i++) {
      const user = `${flagKey}-user-${i}`;
      const variant = await c.getFeatureFlag(flagKey, user);
      expect(typeof variant).toBe('string');
      assigned[variant as string] = (assigned[variant as string] ?? 0) + 1;
      if (random() < (rates[variant as string] ?? 0))
        c.capture({ distinctId: user, event: `${flagKey}-purchase` });
    }
    await c.flush();
    // Both variants got users, roughly half each (the flag's 50/50 split).
    expect(assigned.control).toBeGreaterThan(USERS * 0.4);
    expect(assigned.test).toBeGreaterThan(USERS * 0.4);
    // Wait until every exposure is stored.
    await expect
      .poll(
        async () => {
          const res = await h.request('POST', `/api/environments/${h.boot.project_id}/query/`, {
            body: {
              query: { kind: 'ExperimentExposureQuery', experiment_id: id },
              refresh: 'force_blocking',
            },
          });
          const t = res.json().total_exposures ?? {};
          return (t.control ?? 0) + (t.test ?? 0);
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBe(USERS);
    return id;
  }

  const result = async (id: number, flagKey: string, method: 'frequentist' | 'bayesian') => {
    await h.request('PATCH', `${experiments}${id}/`, { body: { stats_config: { method } } });
    const res = await h.request('POST', `/api/environments/${h.boot.project_id}/query/`, {
      body: {
        query: {
          kind: 'ExperimentQuery',
          experiment_id: id,
          metric: {
            kind: 'ExperimentMetric',
            metric_type: 'funnel',
            series: [{ kind: 'EventsNode', event: `${flagKey}-purchase` }],
          },
        },
        refresh: 'force_blocking',
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  it('finds a true effect (10 % vs 16 % conversion), both frequentist and Bayesian', async () => {
    const id = await simulate('e2e-effect', { control: 0.1, test: 0.16 }, 7);
    const f = await result(id, 'e2e-effect', 'frequentist');
    expect(f.baseline.number_of_samples + f.variant_results[0].number_of_samples).toBe(USERS);
    const rate = (s: { sum: number; number_of_samples: number }) => s.sum / s.number_of_samples;
    expect(rate(f.baseline)).toBeGreaterThan(0.07);
    expect(rate(f.baseline)).toBeLessThan(0.13);
    expect(rate(f.variant_results[0])).toBeGreaterThan(0.13);
    expect(f.variant_results[0]).toMatchObject({ key: 'test', method: 'frequentist', significant: true });
    expect(f.variant_results[0].p_value).toBeLessThan(0.05);
    expect(f.variant_results[0].confidence_interval[0]).toBeGreaterThan(0);
    const b = await result(id, 'e2e-effect', 'bayesian');
    expect(b.variant_results[0]).toMatchObject({ key: 'test', method: 'bayesian', significant: true });
    expect(b.variant_results[0].chance_to_win).toBeGreaterThan(0.95);
  }, 120_000);

  it('finds none on an A/A test (10 % both)', async () => {
    const id = await simulate('e2e-aa', { control: 0.1, test: 0.1 }, 11);
    const f = await result(id, 'e2e-aa', 'frequentist');
    expect(f.variant_results[0]).toMatchObject({ key: 'test', significant: false });
    expect(f.variant_results[0].p_value).toBeGreaterThan(0.05);
    const [lo, hi] = f.variant_results[0].confidence_interval;
    expect(lo).toBeLessThan(0);
    expect(hi).toBeGreaterThan(0);
    const b = await result(id, 'e2e-aa', 'bayesian');
    expect(b.variant_results[0].significant).toBe(false);
  }, 120_000);
});
