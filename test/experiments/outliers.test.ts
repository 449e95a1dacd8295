import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventRow, insertEvents } from '../helpers/events-insert.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * Outlier handling on mean metrics (PostHog's `lower_bound_percentile` / `upper_bound_percentile`
 * / `ignore_zeros`): every exposed person's value is clamped to percentiles of all exposed
 * persons' values. The oracle computes the percentiles (linear interpolation between ranks) and
 * the clamped sums here from the values the events were generated with.
 */
describe(`Experiment outlier handling (${backend})`, () => {
  let h: Harness;
  let team: number;
  let expId: number;
  const rows: EventRow[] = [];
  // Per-person purchase totals; 0 means the person was exposed and bought nothing.
  const values: Record<string, number[]> = {
    control: [0, 0, 5, 10, 10, 20, 30, 40, 50, 1000],
    test: [0, 5, 5, 10, 20, 25, 30, 60, 80, 5000],
  };
  const add = (event: string, person: string, ts: string, props: Record<string, unknown>) =>
    rows.push({
      uuid: randomUUID(),
      event,
      properties: JSON.stringify(props),
      timestamp: ts,
      team_id: team,
      distinct_id: person,
      person_id: `00000000-0000-4000-8000-${person.padStart(12, '0')}`,
    });

  /** The p-quantile with linear interpolation between order statistics (R type 7, numpy's default). */
  const quantile = (xs: number[], p: number) => {
    const s = [...xs].sort((a, b) => a - b);
    const pos = (s.length - 1) * p;
    const i = Math.floor(pos);
    const lo = s[i] as number;
    const hi = s[Math.min(i + 1, s.length - 1)] as number;
    return lo + (pos - i) * (hi - lo);
  };
  const clamped = (lo: number, hi: number) =>
    Object.fromEntries(
      Object.entries(values).map(([k, xs]) => {
        const w = xs.map((x) => Math.min(Math.max(x, lo), hi));
        return [k, { n: w.length, sum: w.reduce((a, b) => a + b, 0), ss: w.reduce((a, b) => a + b * b, 0) }];
      }),
    );

  beforeAll(async () => {
    h = await startHarness();
    team = h.boot.project_id;
    const created = await h.request('POST', `/api/environments/${team}/experiments/`, {
      body: { name: 'Outliers', feature_flag_key: 'out-flag' },
    });
    expId = created.json().id;
    await h.request('PATCH', `/api/environments/${team}/experiments/${expId}/`, {
      body: { start_date: '2026-11-01T00:00:00Z', end_date: '2026-11-05T00:00:00Z' },
    });
    let n = 0;
    for (const [variant, xs] of Object.entries(values))
      for (const x of xs) {
        const person = String(++n);
        add('$feature_flag_called', person, '2026-11-01 10:00:00.000000', {
          $feature_flag: 'out-flag',
          $feature_flag_response: variant,
        });
        // Split each total over two purchases: the per-person value is their sum.
        if (x > 0) {
          add('purchase', person, '2026-11-02 10:00:00.000000', { amount: x / 2 });
          add('purchase', person, '2026-11-03 10:00:00.000000', { amount: x / 2 });
        }
      }
    await insertEvents(h.stores.events, rows);
  });
  afterAll(async () => h?.close());

  const run = (extra: Record<string, unknown>) =>
    h.request('POST', `/api/environments/${team}/query/`, {
      body: {
        query: {
          kind: 'ExperimentQuery',
          experiment_id: expId,
          metric: {
            kind: 'ExperimentMetric',
            metric_type: 'mean',
            source: { kind: 'EventsNode', event: 'purchase', math: 'sum', math_property: 'amount' },
            ...extra,
          },
        },
      },
    });
  const sums = (body: { baseline: Record<string, number>; variant_results: Record<string, number>[] }) => {
    const t = body.variant_results[0] as Record<string, number>;
    return {
      control: { n: body.baseline.number_of_samples, sum: body.baseline.sum, ss: body.baseline.sum_squares },
      test: { n: t.number_of_samples, sum: t.sum, ss: t.sum_squares },
    };
  };
  const all = [...values.control!, ...values.test!];

  it('clamps per-person values to the percentiles of all exposed persons', async () => {
    const res = await run({ lower_bound_percentile: 0.1, upper_bound_percentile: 0.9 });
    expect(res.statusCode, res.body).toBe(200);
    const want = clamped(quantile(all, 0.1), quantile(all, 0.9));
    const got = sums(res.json());
    for (const k of ['control', 'test'] as const) {
      expect(got[k].n).toBe(want[k]!.n);
      expect(got[k].sum).toBeCloseTo(want[k]!.sum, 6);
      expect(got[k].ss).toBeCloseTo(want[k]!.ss, 4);
    }
    // The outliers moved the sums: without winsorization test's total is 5235.
    expect(want.test!.sum).toBeLessThan(1000);
  });

  it('only an upper bound, with ignore_zeros: the quantile of the non-zero values', async () => {
    const res = await run({ upper_bound_percentile: 0.75, ignore_zeros: true });
    expect(res.statusCode, res.body).toBe(200);
    const want = clamped(
      Math.min(...all),
      quantile(
        all.filter((x) => x !== 0),
        0.75,
      ),
    );
    const got = sums(res.json());
    for (const k of ['control', 'test'] as const) {
      expect(got[k].sum).toBeCloseTo(want[k]!.sum, 6);
      expect(got[k].ss).toBeCloseTo(want[k]!.ss, 4);
    }
  });

  it('without bounds the raw sums are kept', async () => {
    const res = await run({});
    const got = sums(res.json());
    expect(got.control.sum).toBe(1165);
    expect(got.test.sum).toBe(5235);
  });

  it('refuses bad bounds with a 400 naming the field', async () => {
    for (const [extra, attr] of [
      [{ lower_bound_percentile: 1.5 }, 'metric__lower_bound_percentile'],
      [{ upper_bound_percentile: 'high' }, 'metric__upper_bound_percentile'],
      [{ lower_bound_percentile: 0.9, upper_bound_percentile: 0.1 }, 'metric__lower_bound_percentile'],
      [{ upper_bound_percentile: 0.9, ignore_zeros: 'yes' }, 'metric__ignore_zeros'],
    ] as const) {
      const res = await run(extra);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ type: 'validation_error', attr: `query__${attr}` });
    }
  });
});
