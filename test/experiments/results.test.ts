import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventRow, insertEvents } from '../helpers/events-insert.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * ExperimentExposureQuery and ExperimentQuery on hand-made events whose answers are counted by
 * hand: first exposure by person (merged distinct ids once), `$multiple` under `exclude`, the
 * first variant under `first_seen`, test accounts, custom exposure events, only events after
 * exposure, ordered funnel steps inside the conversion window.
 */
describe(`Experiment results (${backend})`, () => {
  let h: Harness;
  let query: string;
  let experiments: string;
  let expId: number;
  const pid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const rows: EventRow[] = [];
  let team: number;
  const ev = (
    event: string,
    distinct: string,
    person: number,
    at: string,
    props: Record<string, unknown> = {},
  ): void => {
    rows.push({
      uuid: randomUUID(),
      event,
      properties: JSON.stringify(props),
      timestamp: `${at.replace('T', ' ').replace('Z', '')}.000000`,
      team_id: team,
      distinct_id: distinct,
      person_id: pid(person),
    });
  };
  const exposure = (distinct: string, person: number, at: string, variant: string, extra = {}) =>
    ev(distinct === 'x' ? 'x' : '$feature_flag_called', distinct, person, at, {
      $feature_flag: 'exp-flag',
      $feature_flag_response: variant,
      ...extra,
    });

  beforeAll(async () => {
    h = await startHarness();
    team = h.boot.project_id;
    query = `/api/environments/${team}/query/`;
    experiments = `/api/environments/${team}/experiments/`;
    const created = await h.request('POST', experiments, {
      body: { name: 'E', feature_flag_key: 'exp-flag' },
    });
    expId = created.json().id;
    await h.request('PATCH', `${experiments}${expId}/`, {
      body: { start_date: '2026-11-01T00:00:00Z', end_date: '2026-11-05T00:00:00Z' },
    });
    // Person 1: two distinct ids (merged), control; buys twice after exposure, once before.
    ev('purchase', 'p1a', 1, '2026-11-01T09:00:00Z', { amount: 100 });
    exposure('p1a', 1, '2026-11-01T10:00:00Z', 'control');
    exposure('p1b', 1, '2026-11-02T10:00:00Z', 'control');
    ev('purchase', 'p1b', 1, '2026-11-02T11:00:00Z', { amount: 10, $session_id: 's1' });
    ev('purchase', 'p1a', 1, '2026-11-03T11:00:00Z', { amount: 20, $session_id: 's2' });
    // Person 2: control, buys nothing.
    exposure('p2', 2, '2026-11-01T12:00:00Z', 'control');
    // Person 3: test, buys once (30), views then signs up inside a day.
    exposure('p3', 3, '2026-11-02T08:00:00Z', 'test');
    ev('purchase', 'p3', 3, '2026-11-02T09:00:00Z', { amount: 30, $session_id: 's3' });
    ev('view', 'p3', 3, '2026-11-02T09:00:00Z');
    ev('signup', 'p3', 3, '2026-11-02T10:00:00Z');
    // Person 4: test; signs up before viewing (not in order), then views much later.
    exposure('p4', 4, '2026-11-02T08:00:00Z', 'test');
    ev('signup', 'p4', 4, '2026-11-02T09:00:00Z');
    ev('view', 'p4', 4, '2026-11-02T10:00:00Z');
    ev('signup', 'p4', 4, '2026-11-04T10:00:00Z');
    // Person 5: saw control then test: `$multiple` (exclude) or control (first_seen).
    exposure('p5', 5, '2026-11-03T08:00:00Z', 'control');
    exposure('p5', 5, '2026-11-03T09:00:00Z', 'test');
    // Person 6: a test account (internal email on the event), test variant.
    exposure('p6', 6, '2026-11-03T08:00:00Z', 'test', { email: 'me@internal.dev' });
    // Noise: another flag, an unknown variant, an exposure after the end.
    ev('$feature_flag_called', 'p7', 7, '2026-11-02T08:00:00Z', {
      $feature_flag: 'other',
      $feature_flag_response: 'test',
    });
    exposure('p8', 8, '2026-11-02T08:00:00Z', 'weird');
    exposure('p9', 9, '2026-11-06T08:00:00Z', 'test');
    // Custom exposure event: the variant in $feature/<key>.
    ev('checkout_viewed', 'p3', 3, '2026-11-02T08:30:00Z', { '$feature/exp-flag': 'test' });
    ev('checkout_viewed', 'p2', 2, '2026-11-04T08:30:00Z', { '$feature/exp-flag': 'control', plan: 'pro' });
    await insertEvents(h.stores.events, rows);
    await h.request('PATCH', `/api/projects/${team}/`, {
      body: {
        test_account_filters: [
          { key: 'email', operator: 'not_icontains', value: 'internal.dev', type: 'event' },
        ],
      },
    });
  });
  afterAll(async () => h?.close());

  const run = async (q: Record<string, unknown>) => {
    const res = await h.request('POST', query, { body: { query: q } });
    return res;
  };

  it('counts first exposures per variant per day, cumulated, and totals', async () => {
    const res = await run({ kind: 'ExperimentExposureQuery', experiment_id: expId });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.total_exposures).toEqual({ control: 2, test: 3, $multiple: 1 });
    const control = body.timeseries.find((t: { variant: string }) => t.variant === 'control');
    expect(control.days).toEqual(['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05']);
    expect(control.exposure_counts).toEqual([2, 2, 2, 2, 2]);
    const test = body.timeseries.find((t: { variant: string }) => t.variant === 'test');
    expect(test.exposure_counts).toEqual([0, 2, 3, 3, 3]);
    expect(body.timeseries.map((t: { variant: string }) => t.variant)).toEqual([
      'control',
      'test',
      '$multiple',
    ]);
    expect(body.date_range.date_from).toMatch(/^2026-11-01/);
  });

  it('first_seen keeps the first variant; filterTestAccounts drops test accounts', async () => {
    const res = await run({
      kind: 'ExperimentExposureQuery',
      experiment_id: expId,
      exposure_criteria: { multiple_variant_handling: 'first_seen', filterTestAccounts: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().total_exposures).toEqual({ control: 3, test: 2 });
  });

  it('a custom exposure event reads the variant from $feature/<key>, with its property filters', async () => {
    const all = await run({
      kind: 'ExperimentExposureQuery',
      experiment_id: expId,
      exposure_criteria: {
        exposure_config: { kind: 'ExperimentEventExposureConfig', event: 'checkout_viewed' },
      },
    });
    expect(all.json().total_exposures).toEqual({ control: 1, test: 1 });
    const pro = await run({
      kind: 'ExperimentExposureQuery',
      experiment_id: expId,
      exposure_criteria: {
        exposure_config: {
          kind: 'ExperimentEventExposureConfig',
          event: 'checkout_viewed',
          properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }],
        },
      },
    });
    expect(pro.json().total_exposures).toEqual({ control: 1 });
  });

  const withStats = async (stats_config: Record<string, unknown>) => {
    await h.request('PATCH', `${experiments}${expId}/`, { body: { stats_config } });
  };

  it('mean metrics count only events after the first exposure, by person', async () => {
    await withStats({ method: 'frequentist' });
    const count = await run({
      kind: 'ExperimentQuery',
      experiment_id: expId,
      metric: {
        kind: 'ExperimentMetric',
        metric_type: 'mean',
        source: { kind: 'EventsNode', event: 'purchase' },
      },
    });
    expect(count.statusCode, count.body).toBe(200);
    const body = count.json();
    // Control: person 1 (2 purchases after exposure), person 2 (0). Test: 3 (1), 4 (0), 6 (0).
    expect(body.baseline).toMatchObject({ key: 'control', number_of_samples: 2, sum: 2, sum_squares: 4 });
    expect(body.variant_results).toHaveLength(1);
    expect(body.variant_results[0]).toMatchObject({
      key: 'test',
      method: 'frequentist',
      number_of_samples: 3,
      sum: 1,
      sum_squares: 1,
    });
    expect(typeof body.variant_results[0].p_value).toBe('number');
    expect(body.variant_results[0].confidence_interval).toHaveLength(2);

    const sum = await run({
      kind: 'ExperimentQuery',
      experiment_id: expId,
      metric: {
        kind: 'ExperimentMetric',
        metric_type: 'mean',
        source: { kind: 'EventsNode', event: 'purchase', math: 'sum', math_property: 'amount' },
      },
    });
    expect(sum.json().baseline).toMatchObject({ sum: 30, sum_squares: 30 * 30 });
    expect(sum.json().variant_results[0]).toMatchObject({ sum: 30, sum_squares: 900 });

    const sessions = await run({
      kind: 'ExperimentQuery',
      experiment_id: expId,
      metric: {
        kind: 'ExperimentMetric',
        metric_type: 'mean',
        source: { kind: 'EventsNode', event: 'purchase', math: 'unique_session' },
      },
    });
    expect(sessions.json().baseline).toMatchObject({ sum: 2 });
  });

  it('funnel metrics need the steps in order, inside the conversion window; Bayesian fields', async () => {
    await withStats({ method: 'bayesian' });
    const metric = (window: number | null) => ({
      kind: 'ExperimentMetric',
      metric_type: 'funnel',
      series: [
        { kind: 'EventsNode', event: 'view' },
        { kind: 'EventsNode', event: 'signup' },
      ],
      ...(window ? { conversion_window: window, conversion_window_unit: 'hour' } : {}),
    });
    const open = await run({ kind: 'ExperimentQuery', experiment_id: expId, metric: metric(null) });
    expect(open.statusCode, open.body).toBe(200);
    const r = open.json().variant_results[0];
    // Person 3 converts; person 4 views at 10:00 and signs up again two days later.
    expect(r).toMatchObject({
      key: 'test',
      method: 'bayesian',
      number_of_samples: 3,
      sum: 2,
      step_counts: [2, 2],
    });
    expect(r).toHaveProperty('chance_to_win');
    expect(r).toHaveProperty('credible_interval');
    const windowed = await run({ kind: 'ExperimentQuery', experiment_id: expId, metric: metric(24) });
    expect(windowed.json().variant_results[0]).toMatchObject({ sum: 1, step_counts: [2, 1] });
    expect(windowed.json().baseline).toMatchObject({
      sum: 0,
      validation_failures: ['baseline-mean-is-zero'],
    });
  });

  it('ratio metrics: numerator and denominator sums per variant, delta-method comparison', async () => {
    await withStats({ method: 'frequentist' });
    const res = await run({
      kind: 'ExperimentQuery',
      experiment_id: expId,
      metric: {
        kind: 'ExperimentMetric',
        metric_type: 'ratio',
        numerator: { kind: 'EventsNode', event: 'purchase', math: 'sum', math_property: 'amount' },
        denominator: { kind: 'EventsNode', event: 'purchase' },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    // Control: person 1 (30 over 2 purchases), person 2 (0 over 0).
    expect(res.json().baseline).toMatchObject({
      number_of_samples: 2,
      sum: 30,
      sum_squares: 900,
      denominator_sum: 2,
      denominator_sum_squares: 4,
      numerator_denominator_sum_product: 60,
    });
    expect(res.json().variant_results[0]).toMatchObject({
      sum: 30,
      denominator_sum: 1,
      numerator_denominator_sum_product: 30,
    });
  });

  it('funnel steps filter on event properties', async () => {
    const res = await run({
      kind: 'ExperimentQuery',
      experiment_id: expId,
      metric: {
        kind: 'ExperimentMetric',
        metric_type: 'funnel',
        series: [
          {
            kind: 'EventsNode',
            event: 'purchase',
            properties: [{ key: 'amount', value: 25, operator: 'gt', type: 'event' }],
          },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    // Only person 3's purchase (30) is above 25; person 1's 100 came before exposure.
    expect(res.json().baseline).toMatchObject({ sum: 0 });
    expect(res.json().variant_results[0]).toMatchObject({ sum: 1, step_counts: [1] });
  });

  it('refuses bad input with 4xx in PostHog shape', async () => {
    const unknown = await run({
      kind: 'ExperimentQuery',
      experiment_id: 999999,
      metric: { kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', event: 'x' } },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ type: 'invalid_request', code: 'not_found' });
    const noId = await run({ kind: 'ExperimentExposureQuery' });
    expect(noId.statusCode).toBe(400);
    expect(noId.json()).toMatchObject({
      type: 'validation_error',
      attr: expect.stringContaining('experiment_id'),
    });
    for (const metric of [
      { kind: 'ExperimentMetric', metric_type: 'mean', source: 'purchase' },
      { kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', math: 'median' } },
      { kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', math: 'sum' } },
      { kind: 'ExperimentMetric', metric_type: 'funnel', series: [] },
      { kind: 'ExperimentMetric', metric_type: 'wat' },
      { kind: 'ExperimentMetric', metric_type: 'ratio', numerator: { kind: 'EventsNode' } },
      { kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'ActionsNode', id: 1 } },
      null,
    ]) {
      const res = await run({ kind: 'ExperimentQuery', experiment_id: expId, metric });
      expect(res.statusCode, JSON.stringify(metric)).toBe(400);
      expect(res.json()).toMatchObject({ type: 'validation_error' });
      expect(res.json().attr).toMatch(/metric/);
    }
  });
});
