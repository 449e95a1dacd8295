import { randomUUID } from 'node:crypto';
import betaCdfOracle from '@stdlib/stats-base-dists-beta-cdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventRow, insertEvents } from '../helpers/events-insert.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * PostHog's legacy ExperimentTrendsQuery / ExperimentFunnelsQuery on generated events whose
 * per-variant counts are recounted by hand-written HogQL, and whose probabilities, expected loss
 * and credible intervals are checked against closed forms computed here (Evan Miller's sums for
 * P(B > A) under Gamma and Beta posteriors, the Erlang CDF, @stdlib's Beta CDF), not against the
 * numerical integration the server does.
 */

// log Γ(n) for integer n by summing logs: every shape here is an integer.
const logFact = (n: number) => {
  let s = 0;
  for (let i = 2; i <= n; i++) s += Math.log(i);
  return s;
};
const lgammaInt = (n: number) => logFact(n - 1);
const lbeta = (a: number, b: number) => lgammaInt(a) + lgammaInt(b) - lgammaInt(a + b);

/** P(λB > λA), λ ~ Gamma(shape α, rate β), integer αB (Evan Miller, "Bayesian A/B testing"). */
function gammaBBeatsA(aA: number, bA: number, aB: number, bB: number): number {
  let total = 0;
  for (let k = 0; k < aB; k++)
    total += Math.exp(
      k * Math.log(bB) +
        aA * Math.log(bA) -
        (k + aA) * Math.log(bA + bB) -
        Math.log(k + aA) -
        lbeta(k + 1, aA),
    );
  return total;
}

/** P(pB > pA), p ~ Beta(α, β), integer αB (Evan Miller). */
function betaBBeatsA(aA: number, bA: number, aB: number, bB: number): number {
  let total = 0;
  for (let i = 0; i < aB; i++)
    total += Math.exp(lbeta(aA + i, bB + bA) - Math.log(bB + i) - lbeta(1 + i, bB) - lbeta(aA, bA));
  return total;
}

/** Erlang CDF (Gamma with integer shape k, rate β): 1 − Σ_{i<k} e^{−βx} (βx)^i / i!. */
function erlangCdf(x: number, k: number, rate: number): number {
  let s = 0;
  for (let i = 0; i < k; i++) s += Math.exp(-rate * x + i * Math.log(rate * x) - logFact(i));
  return 1 - s;
}

describe(`Legacy experiment queries (${backend})`, () => {
  let h: Harness;
  let team: number;
  let query: string;
  let expId: number;
  const rows: EventRow[] = [];
  const FLAG = 'legacy-flag';
  const at = (day: number, hour: number) => `2026-11-0${day} ${String(hour).padStart(2, '0')}:00:00.000000`;
  const ev = (event: string, person: string, ts: string, props: Record<string, unknown>) =>
    rows.push({
      uuid: randomUUID(),
      event,
      properties: JSON.stringify(props),
      timestamp: ts,
      team_id: team,
      distinct_id: person,
      person_id: `00000000-0000-4000-8000-${person.replace(/\D/g, '').padStart(11, '0')}${person[0] === 'c' ? 1 : 2}`,
    });
  const run = (q: Record<string, unknown>) => h.request('POST', query, { body: { query: q } });
  const hogql = async (sql: string) => {
    const res = await run({ kind: 'HogQLQuery', query: sql });
    expect(res.statusCode, res.body).toBe(200);
    return new Map<string, number>(
      res.json().results.map((r: [string, number]) => [String(r[0]), Number(r[1])]),
    );
  };

  beforeAll(async () => {
    h = await startHarness();
    team = h.boot.project_id;
    query = `/api/environments/${team}/query/`;
    const created = await h.request('POST', `/api/environments/${team}/experiments/`, {
      body: { name: 'Legacy', feature_flag_key: FLAG },
    });
    expId = created.json().id;
    await h.request('PATCH', `/api/environments/${team}/experiments/${expId}/`, {
      body: { start_date: '2026-11-01T00:00:00Z', end_date: '2026-11-05T00:00:00Z' },
    });
    for (const variant of ['control', 'test']) {
      for (let i = 0; i < 200; i++) {
        const p = `${variant[0]}${i}`;
        const flagProps = {
          $feature_flag: FLAG,
          $feature_flag_response: variant,
          [`$feature/${FLAG}`]: variant,
        };
        ev('$feature_flag_called', p, at(1, 10), flagProps);
        // A quarter see the flag again the next day: still one exposed user.
        if (i < 50) ev('$feature_flag_called', p, at(2, 9), flagProps);
        ev('view', p, at(2, 12), { [`$feature/${FLAG}`]: variant });
        // Control: 40 buyers; test: 80 buyers, 10 of them twice.
        const buyers = variant === 'control' ? 40 : 80;
        if (i < buyers) ev('purchase', p, at(3, 12), { [`$feature/${FLAG}`]: variant, amount: 10 });
        if (variant === 'test' && i < 10)
          ev('purchase', p, at(3, 13), { [`$feature/${FLAG}`]: variant, amount: 5 });
      }
    }
    // Noise: a purchase outside the variants, one before the experiment.
    ev('purchase', 'c0', at(3, 14), { [`$feature/${FLAG}`]: 'weird', amount: 1000 });
    ev('purchase', 'c1', '2026-10-30 10:00:00.000000', { [`$feature/${FLAG}`]: 'control', amount: 1000 });
    await insertEvents(h.stores.events, rows);
  });
  afterAll(async () => h?.close());

  it('ExperimentTrendsQuery: counts and exposures per variant, Gamma–Poisson probabilities', async () => {
    const res = await run({
      kind: 'ExperimentTrendsQuery',
      experiment_id: expId,
      count_query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'purchase' }] },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    const counts = await hogql(
      `SELECT properties['$feature/${FLAG}'] AS v, count() FROM events WHERE event = 'purchase'
       AND timestamp >= '2026-11-01' AND timestamp <= '2026-11-05' GROUP BY v`,
    );
    const exposed = await hogql(
      `SELECT properties.$feature_flag_response AS v, count(DISTINCT person_id) FROM events
       WHERE event = '$feature_flag_called' AND properties.$feature_flag = '${FLAG}' GROUP BY v`,
    );
    expect([counts.get('control'), counts.get('test')]).toEqual([40, 90]);
    expect(body.kind).toBe('ExperimentTrendsQuery');
    expect(body.variants).toEqual([
      {
        key: 'control',
        count: counts.get('control'),
        exposure: 1,
        absolute_exposure: exposed.get('control'),
      },
      { key: 'test', count: counts.get('test'), exposure: 1, absolute_exposure: exposed.get('test') },
    ]);
    // Gamma(1 + count, 1 + exposed) posteriors.
    const pTest = gammaBBeatsA(41, 201, 91, 201);
    expect(body.probability.test).toBeCloseTo(pTest, 6);
    expect(body.probability.control).toBeCloseTo(1 - pTest, 6);
    expect(body.significance_code).toBe('significant');
    expect(body.significant).toBe(true);
    // Expected loss of test (the best): E[(λc − λt)⁺] = E[λc·1{λc>λt}] − E[λt·1{λc>λt}].
    const loss = (41 / 201) * gammaBBeatsA(91, 201, 42, 201) - (91 / 201) * gammaBBeatsA(92, 201, 41, 201);
    expect(body.p_value).toBeCloseTo(loss, 7);
    const [lo, hi] = body.credible_intervals.test;
    expect(erlangCdf(lo, 91, 201)).toBeCloseTo(0.025, 8);
    expect(erlangCdf(hi, 91, 201)).toBeCloseTo(0.975, 8);
    expect(body.stats_version).toBe(2);
    expect(body.count_query.breakdownFilter).toEqual({
      breakdown: `$feature/${FLAG}`,
      breakdown_type: 'event',
    });
    expect(body.count_query.trendsFilter.display).toBe('ActionsLineGraphCumulative');
    expect(body.exposure_query.series[0]).toMatchObject({ event: '$feature_flag_called', math: 'dau' });
    expect(body.insight.map((s: { breakdown_value: string }) => s.breakdown_value).sort()).toEqual([
      'control',
      'test',
    ]);
  });

  it('ExperimentTrendsQuery: a custom exposure query and a sum (continuous) metric', async () => {
    const res = await run({
      kind: 'ExperimentTrendsQuery',
      experiment_id: expId,
      count_query: {
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', event: 'purchase', math: 'avg', math_property: 'amount' }],
      },
      exposure_query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'view', math: 'dau' }] },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    // avg is turned into sum, as PostHog does: control 40 × 10, test 80 × 10 + 10 × 5.
    expect(body.count_query.series[0].math).toBe('sum');
    expect(body.variants.map((v: { count: number }) => v.count)).toEqual([400, 850]);
    expect(body.variants.map((v: { absolute_exposure: number }) => v.absolute_exposure)).toEqual([200, 200]);
    // The continuous model: Student t posteriors (df 202) of the log per-user mean, both with the
    // same scale; the difference of the locations is over 8 of its standard deviations, so test
    // wins with probability above 0.999 (the t tails at df 202 are within 1e-3 of a normal's).
    const n = 200;
    const mu = (m: number) => (n * Math.log(m + 1e-10)) / (n + 1);
    const scale = Math.sqrt((1 + 0.5 * n * 0.75) / ((n + 1) * (1 + n / 2)));
    const z = (mu(850 / n) - mu(400 / n)) / (scale * Math.SQRT2);
    expect(z).toBeGreaterThan(8);
    expect(body.probability.test).toBeGreaterThan(0.999);
    expect(body.significance_code).toBe('significant');
  });

  it('ExperimentFunnelsQuery: success and failure per variant, Beta probabilities', async () => {
    const res = await run({
      kind: 'ExperimentFunnelsQuery',
      experiment_id: expId,
      funnels_query: {
        kind: 'FunnelsQuery',
        series: [
          { kind: 'EventsNode', event: 'view' },
          { kind: 'EventsNode', event: 'purchase' },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    const converted = await hogql(
      `SELECT v, countIf(bought) FROM (SELECT person_id, any(properties['$feature/${FLAG}']) AS v,
         countIf(event = 'purchase' AND timestamp > '2026-11-02 12:00:00') > 0 AS bought
       FROM events WHERE event IN ('view', 'purchase') AND properties['$feature/${FLAG}'] IN ('control', 'test')
       GROUP BY person_id HAVING countIf(event = 'view') > 0) GROUP BY v`,
    );
    expect(body.kind).toBe('ExperimentFunnelsQuery');
    expect(body.variants).toEqual([
      {
        key: 'control',
        success_count: converted.get('control'),
        failure_count: 200 - (converted.get('control') ?? 0),
      },
      {
        key: 'test',
        success_count: converted.get('test'),
        failure_count: 200 - (converted.get('test') ?? 0),
      },
    ]);
    expect([converted.get('control'), converted.get('test')]).toEqual([40, 80]);
    const pTest = betaBBeatsA(41, 161, 81, 121);
    expect(body.probability.test).toBeCloseTo(pTest, 6);
    expect(body.probability.control).toBeCloseTo(1 - pTest, 6);
    expect(body.significance_code).toBe('significant');
    const loss = (41 / 202) * betaBBeatsA(81, 121, 42, 161) - (81 / 202) * betaBBeatsA(82, 121, 41, 161);
    expect(body.expected_loss).toBeCloseTo(loss, 7);
    const [lo, hi] = body.credible_intervals.control;
    expect(betaCdfOracle(lo, 41, 161)).toBeCloseTo(0.025, 8);
    expect(betaCdfOracle(hi, 41, 161)).toBeCloseTo(0.975, 8);
    expect(body.funnels_query.breakdownFilter.breakdown).toBe(`$feature/${FLAG}`);
    expect(body.funnels_query.funnelsFilter.layout).toBe('vertical');
    expect(body.insight).toHaveLength(2);
  });

  it('refuses bad input with 4xx in PostHog shape', async () => {
    const cases: [Record<string, unknown>, number, string | null][] = [
      [
        { kind: 'ExperimentTrendsQuery', count_query: { kind: 'TrendsQuery', series: [] } },
        400,
        'experiment_id',
      ],
      [{ kind: 'ExperimentTrendsQuery', experiment_id: expId }, 400, 'count_query'],
      [
        { kind: 'ExperimentTrendsQuery', experiment_id: expId, count_query: { kind: 'FunnelsQuery' } },
        400,
        'count_query',
      ],
      [
        {
          kind: 'ExperimentTrendsQuery',
          experiment_id: expId,
          count_query: { kind: 'TrendsQuery', series: [] },
        },
        400,
        'count_query',
      ],
      [
        {
          kind: 'ExperimentTrendsQuery',
          experiment_id: expId,
          count_query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'x' }] },
          exposure_query: 'nope',
        },
        400,
        'exposure_query',
      ],
      [
        {
          kind: 'ExperimentFunnelsQuery',
          experiment_id: expId,
          funnels_query: { kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: 'view' }] },
        },
        400,
        'funnels_query',
      ],
      [{ kind: 'ExperimentFunnelsQuery', experiment_id: 'x', funnels_query: {} }, 400, 'experiment_id'],
      [
        {
          kind: 'ExperimentFunnelsQuery',
          experiment_id: 99999,
          funnels_query: {
            kind: 'FunnelsQuery',
            series: [
              { kind: 'EventsNode', event: 'view' },
              { kind: 'EventsNode', event: 'purchase' },
            ],
          },
        },
        404,
        null,
      ],
    ];
    for (const [q, status, attr] of cases) {
      const res = await run(q);
      expect(res.statusCode, `${JSON.stringify(q)} ${res.body}`).toBe(status);
      const body = res.json();
      expect(body).toMatchObject({ type: status === 404 ? 'invalid_request' : 'validation_error' });
      expect(typeof body.detail).toBe('string');
      if (attr) expect(body.attr, res.body).toMatch(new RegExp(`^query__${attr}(__|$)`));
    }
  });

  it('no results: PostHog lists what is missing', async () => {
    const res = await run({
      kind: 'ExperimentTrendsQuery',
      experiment_id: expId,
      count_query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'never-sent' }] },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(JSON.parse(res.json().detail)).toEqual({
      'no-exposures': false,
      'no-control-variant': true,
      'no-test-variant': true,
    });
  });
});
