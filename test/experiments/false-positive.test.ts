import { randomUUID } from 'node:crypto';
import normalCdfOracle from '@stdlib/stats-base-dists-normal-cdf';
import tCdfOracle from '@stdlib/stats-base-dists-t-cdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bayesian, frequentist, type VariantStats } from '../../src/domain/experiments/stats/compare.js';
import { type EventRow, insertEvents } from '../helpers/events-insert.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { seededRandom } from '../helpers/random.js';

/**
 * The error rates the statistics promise, measured over many seeded experiments: an A/A test is
 * called significant at the stated rate (α for the frequentist test, 2·(1 − credible level) for the
 * Bayesian one, which flags a chance to win above 95 % or below 5 %), and a real effect is found as
 * often as the closed-form power says. Then the query path on twenty seeded A/A experiments: its
 * p-values equal Welch's test computed here from the raw per-user values with @stdlib.
 */

const stats = (key: string, values: readonly number[]): VariantStats => ({
  key,
  number_of_samples: values.length,
  sum: values.reduce((s, v) => s + v, 0),
  sum_squares: values.reduce((s, v) => s + v * v, 0),
});
const bernoulli = (random: () => number, n: number, p: number) =>
  Array.from({ length: n }, () => (random() < p ? 1 : 0));
/** Purchases per user: geometric, so the values are skewed like real counts. */
const geometric = (random: () => number, n: number, p: number) =>
  Array.from({ length: n }, () => {
    let k = 0;
    while (random() > p && k < 50) k++;
    return k;
  });

/** A rate from `trials` runs must lie within 3.5 binomial standard deviations of `expected`. */
function expectRate(hits: number, trials: number, expected: number) {
  const sd = Math.sqrt((expected * (1 - expected)) / trials);
  expect(Math.abs(hits / trials - expected), `${hits}/${trials} vs ${expected}`).toBeLessThan(3.5 * sd);
}

describe('experiment error rates over seeded simulations', () => {
  const RUNS = 3000;

  it('A/A conversions: frequentist significant at α = 5 %, Bayesian at 10 %', () => {
    const random = seededRandom(20261129);
    let freq = 0;
    let bayes = 0;
    for (let i = 0; i < RUNS; i++) {
      const c = stats('control', bernoulli(random, 800, 0.1));
      const t = stats('test', bernoulli(random, 800, 0.1));
      if (frequentist(c, t).significant) freq++;
      if (bayesian(c, t).significant) bayes++;
    }
    expectRate(freq, RUNS, 0.05);
    expectRate(bayes, RUNS, 0.1);
  });

  it('A/A skewed counts with unequal group sizes: frequentist significant at α = 5 %', () => {
    const random = seededRandom(7);
    let freq = 0;
    for (let i = 0; i < RUNS; i++) {
      const c = stats('control', geometric(random, 300, 0.4));
      const t = stats('test', geometric(random, 700, 0.4));
      if (frequentist(c, t).significant) freq++;
    }
    expectRate(freq, RUNS, 0.05);
  });

  it('a 10 % → 13 % effect is found as often as the closed-form power says', () => {
    const n = 2000;
    const [p0, p1] = [0.1, 0.13];
    const se = Math.sqrt((p0 * (1 - p0)) / n + (p1 * (1 - p1)) / n);
    const z = 1.959963984540054;
    const power = 1 - normalCdfOracle(z - (p1 - p0) / se, 0, 1) + normalCdfOracle(-z - (p1 - p0) / se, 0, 1);
    expect(power).toBeGreaterThan(0.8);
    const random = seededRandom(42);
    let found = 0;
    for (let i = 0; i < 2000; i++) {
      const r = frequentist(
        stats('control', bernoulli(random, n, p0)),
        stats('test', bernoulli(random, n, p1)),
      );
      if (r.significant && (r.delta ?? 0) > 0) found++;
    }
    expectRate(found, 2000, power);
  });
});

describe(`ExperimentQuery on twenty seeded A/A experiments (${backend})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  /** Welch's two-sided p-value, written out here, with @stdlib's t distribution. */
  function welchP(a: readonly number[], b: readonly number[]): number {
    const m = (x: readonly number[]) => x.reduce((s, v) => s + v, 0) / x.length;
    const v = (x: readonly number[]) => x.reduce((s, y) => s + (y - m(x)) ** 2, 0) / (x.length - 1);
    const [va, vb] = [v(a) / a.length, v(b) / b.length];
    const t = (m(b) - m(a)) / Math.sqrt(va + vb);
    const df = (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
    return 2 * (1 - tCdfOracle(Math.abs(t), df));
  }

  it('answers the p-value of the raw data for each, and few are significant', async () => {
    const team = h.boot.project_id;
    const experiments = `/api/environments/${team}/experiments/`;
    const start = Date.parse('2026-11-01T00:00:00Z');
    const chTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '000');
    const rows: EventRow[] = [];
    const truth: { id: number; control: number[]; test: number[] }[] = [];
    for (let seed = 1; seed <= 20; seed++) {
      const key = `aa-${seed}`;
      const created = await h.request('POST', experiments, { body: { name: key, feature_flag_key: key } });
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().id as number;
      await h.request('PATCH', `${experiments}${id}/`, {
        body: {
          start_date: '2026-11-01T00:00:00Z',
          end_date: '2026-11-03T00:00:00Z',
          stats_config: { method: 'frequentist' },
        },
      });
      const random = seededRandom(seed);
      const values: Record<string, number[]> = { control: [], test: [] };
      for (let u = 0; u < 300; u++) {
        const variant = random() < 0.5 ? 'control' : 'test';
        const purchases = geometric(random, 1, 0.5)[0] ?? 0;
        values[variant]?.push(purchases);
        const person = randomUUID();
        const t0 = start + 60_000 + u * 1000;
        const base = { team_id: team, distinct_id: `${key}-u${u}`, person_id: person };
        rows.push({
          ...base,
          uuid: randomUUID(),
          event: '$feature_flag_called',
          properties: JSON.stringify({ $feature_flag: key, $feature_flag_response: variant }),
          timestamp: chTime(t0),
        });
        for (let k = 0; k < purchases; k++)
          rows.push({
            ...base,
            uuid: randomUUID(),
            event: `${key}-buy`,
            properties: '{}',
            timestamp: chTime(t0 + 1 + k),
          });
      }
      truth.push({ id, control: values.control ?? [], test: values.test ?? [] });
    }
    await insertEvents(h.stores.events, rows);

    let significant = 0;
    for (const [i, t] of truth.entries()) {
      const res = await h.request('POST', `/api/environments/${team}/query/`, {
        body: {
          query: {
            kind: 'ExperimentQuery',
            experiment_id: t.id,
            metric: {
              kind: 'ExperimentMetric',
              metric_type: 'mean',
              source: { kind: 'EventsNode', event: `aa-${i + 1}-buy` },
            },
          },
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body.baseline).toMatchObject({ key: 'control', number_of_samples: t.control.length });
      const result = body.variant_results[0];
      expect(result.number_of_samples).toBe(t.test.length);
      expect(result.p_value).toBeCloseTo(welchP(t.control, t.test), 6);
      if (result.significant) significant++;
    }
    // Twenty draws at 5 %: six or more would happen by chance 3 times in 10 000.
    expect(significant).toBeLessThanOrEqual(5);
  }, 120_000);
});
