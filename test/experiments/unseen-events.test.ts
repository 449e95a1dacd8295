import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { capture, uuid } from '../helpers/query-lists.js';

/**
 * Metrics on events the project has never received: PostHog accepts them (the experiment API
 * checks a metric's shape, not whether its event was seen; the code sending it may ship with the
 * experiment) and its results read 0 with a validation failure rather than an error. Burrow does
 * the same; the console warns instead (test/console/experiments.test.ts).
 */
describe(`Experiment metrics on unseen events (${backend})`, () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    base = `/api/projects/${h.boot.project_id}/`;
  });
  afterAll(async () => h?.close());

  it('accepts the metric, and its results read 0 with baseline-mean-is-zero, not a 4xx or 500', async () => {
    const metric = {
      kind: 'ExperimentMetric',
      metric_type: 'mean',
      source: { kind: 'EventsNode', event: 'never-sent-event' },
    };
    const created = await h.request('POST', `${base}experiments/`, {
      body: { name: 'Unseen', feature_flag_key: 'unseen-exp', metrics: [metric] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id;
    const start = new Date(Date.now() - 60_000).toISOString();
    await h.request('PATCH', `${base}experiments/${id}/`, { body: { start_date: start } });
    const at = new Date(Date.now() - 30_000).toISOString();
    await capture(
      h,
      h.boot.project_api_key,
      h.boot.project_id,
      ['control', 'test'].flatMap((variant) =>
        [0, 1, 2].map((i) => ({
          event: '$feature_flag_called',
          distinct_id: `${variant}-${i}`,
          uuid: uuid(),
          timestamp: at,
          properties: { $feature_flag: 'unseen-exp', $feature_flag_response: variant },
        })),
      ),
    );
    const definition = await h.request('GET', `${base}event_definitions/by_name/?name=never-sent-event`);
    expect(definition.statusCode).toBe(404);
    const res = await h.request('POST', `/api/environments/${h.boot.project_id}/query/`, {
      body: { query: { kind: 'ExperimentQuery', experiment_id: id, metric }, refresh: 'force_blocking' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const out = res.json();
    expect(out.baseline).toMatchObject({ key: 'control', number_of_samples: 3, sum: 0 });
    expect(out.baseline.validation_failures).toContain('baseline-mean-is-zero');
    expect(out.variant_results[0]).toMatchObject({
      key: 'test',
      number_of_samples: 3,
      sum: 0,
      significant: false,
    });
  });
});
