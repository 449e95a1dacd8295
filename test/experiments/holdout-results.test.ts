import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventRow, insertEvents } from '../helpers/events-insert.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * Held-out users (the flag answered `holdout-<id>`) are their own group in an experiment's
 * exposures and results, after the flag's variants, as PostHog reports them; they are not mixed
 * into control. Counts are by hand and recounted with HogQL.
 */
describe(`Experiment holdout group in results (${backend})`, () => {
  let h: Harness;
  let team: number;
  let base: string;
  let expId: number;
  let held: string;
  const rows: EventRow[] = [];
  const add = (event: string, person: number, ts: string, props: Record<string, unknown>) =>
    rows.push({
      uuid: randomUUID(),
      event,
      properties: JSON.stringify(props),
      timestamp: ts,
      team_id: team,
      distinct_id: `u${person}`,
      person_id: `00000000-0000-4000-8000-${String(person).padStart(12, '0')}`,
    });
  const run = (q: Record<string, unknown>) => h.request('POST', `${base}query/`, { body: { query: q } });

  beforeAll(async () => {
    h = await startHarness();
    team = h.boot.project_id;
    base = `/api/environments/${team}/`;
    const holdout = (
      await h.request('POST', `${base}experiment_holdouts/`, {
        body: { name: 'Ten percent', filters: [{ properties: [], rollout_percentage: 10 }] },
      })
    ).json();
    held = `holdout-${holdout.id}`;
    const created = await h.request('POST', `${base}experiments/`, {
      body: { name: 'Held', feature_flag_key: 'held-flag', holdout_id: holdout.id },
    });
    expId = created.json().id;
    await h.request('PATCH', `${base}experiments/${expId}/`, {
      body: { start_date: '2026-11-01T00:00:00Z', end_date: '2026-11-05T00:00:00Z' },
    });
    // control: persons 1-3 (1 buys twice); test: 4-5 (both buy); held out: 6-9 (6 buys once).
    const groups: [string, number[]][] = [
      ['control', [1, 2, 3]],
      ['test', [4, 5]],
      [held, [6, 7, 8, 9]],
    ];
    for (const [variant, people] of groups)
      for (const p of people)
        add('$feature_flag_called', p, '2026-11-02 10:00:00.000000', {
          $feature_flag: 'held-flag',
          $feature_flag_response: variant,
          '$feature/held-flag': variant,
        });
    for (const p of [1, 1, 4, 5, 6])
      add('purchase', p, '2026-11-03 10:00:00.000000', {
        '$feature/held-flag': p === 6 ? held : p < 4 ? 'control' : 'test',
      });
    await insertEvents(h.stores.events, rows);
  });
  afterAll(async () => h?.close());

  it('exposures list the holdout group after the variants', async () => {
    const res = await run({ kind: 'ExperimentExposureQuery', experiment_id: expId });
    expect(res.statusCode, res.body).toBe(200);
    const oracle = await run({
      kind: 'HogQLQuery',
      query: `SELECT properties.$feature_flag_response AS v, count(DISTINCT person_id) FROM events
              WHERE event = '$feature_flag_called' GROUP BY v ORDER BY v`,
    });
    const counted = Object.fromEntries(oracle.json().results);
    expect(res.json().total_exposures).toEqual({
      control: counted.control,
      test: counted.test,
      [held]: counted[held],
    });
    expect(res.json().total_exposures[held]).toBe(4);
    expect(res.json().timeseries.map((t: { variant: string }) => t.variant)).toEqual([
      'control',
      'test',
      held,
    ]);
  });

  it('ExperimentQuery: the holdout is a variant result of its own; control keeps only its users', async () => {
    const res = await run({
      kind: 'ExperimentQuery',
      experiment_id: expId,
      metric: {
        kind: 'ExperimentMetric',
        metric_type: 'mean',
        source: { kind: 'EventsNode', event: 'purchase' },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.baseline).toMatchObject({ key: 'control', number_of_samples: 3, sum: 2, sum_squares: 4 });
    expect(body.variant_results.map((v: { key: string }) => v.key)).toEqual(['test', held]);
    expect(body.variant_results[1]).toMatchObject({
      key: held,
      number_of_samples: 4,
      sum: 1,
      sum_squares: 1,
    });
  });

  it('ExperimentTrendsQuery counts the holdout as its own variant too', async () => {
    const res = await run({
      kind: 'ExperimentTrendsQuery',
      experiment_id: expId,
      count_query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'purchase' }] },
    });
    expect(res.statusCode, res.body).toBe(200);
    const byKey = Object.fromEntries(res.json().variants.map((v: { key: string }) => [v.key, v]));
    expect(byKey.control).toMatchObject({ count: 2, absolute_exposure: 3 });
    expect(byKey[held]).toMatchObject({ count: 1, absolute_exposure: 4, exposure: 4 / 3 });
    expect(Object.keys(res.json().probability)).toEqual(['control', 'test', held]);
    expect(res.json().significance_code).toBe('not_enough_exposure');
  });
});
