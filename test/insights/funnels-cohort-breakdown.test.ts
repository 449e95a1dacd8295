import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calculatedCohort, personIs } from '../helpers/cohorts.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { DATASET_NOW, fails, run, sendDataset } from '../helpers/insights-dataset.js';

/**
 * FunnelsQuery broken down by cohorts: each cohort's funnel must equal the same funnel filtered to
 * that cohort (a cohort property filter: another path through the compiler), "all" the unfiltered
 * one; a person in two cohorts counts in both. Dataset: helpers/insights-dataset.ts.
 */
let h: Harness;
let project: number;
let gold: number;
let firstTwo: number;

const cohort = (name: string, filters: unknown) => calculatedCohort(h, project, name, filters);

beforeAll(async () => {
  h = await startHarness({}, { now: () => DATASET_NOW });
  project = h.boot.project_id;
  await sendDataset(h, h.boot.project_api_key, project);
  gold = await cohort('Gold tier', personIs('tier', 'gold'));
  firstTwo = await cohort('First two', personIs('name', ['p1', 'p2']));
}, 60_000);
afterAll(async () => h?.close());

const funnel = (extra: Record<string, unknown> = {}) =>
  run(h, project, {
    kind: 'FunnelsQuery',
    dateRange: { date_from: '2020-01-09', date_to: '2020-01-20' },
    series: [
      { kind: 'EventsNode', event: '$pageview' },
      { kind: 'EventsNode', event: '$pageleave' },
      { kind: 'EventsNode', event: '$pageview' },
    ],
    funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' },
    ...extra,
  }) as unknown as Promise<{ results: unknown }>;

type Step = { count: number; breakdown?: unknown; breakdown_value?: unknown; name: string };
const counts = (steps: Step[]) => steps.map((s) => s.count);

describe('FunnelsQuery broken down by cohort', () => {
  it('gives one funnel per cohort, in the order asked, equal to the funnel filtered to it', async () => {
    const out = (
      await funnel({ breakdownFilter: { breakdown_type: 'cohort', breakdown: [gold, firstTwo, 'all'] } })
    ).results as Step[][];
    expect(out.map((steps) => [steps[0]?.breakdown, steps[0]?.breakdown_value])).toEqual([
      ['Gold tier', gold],
      ['First two', firstTwo],
      ['all users', 'all'],
    ]);
    for (const [i, id] of [gold, firstTwo].entries()) {
      const filtered = (await funnel({ properties: [{ type: 'cohort', key: 'id', value: id }] }))
        .results as Step[];
      expect(counts(out[i] as Step[]), `cohort ${id}`).toEqual(counts(filtered));
    }
    const unfiltered = (await funnel()).results as Step[];
    expect(counts(out[2] as Step[])).toEqual(counts(unfiltered));
    // p1 is gold and one of the first two: in both funnels' first step.
    expect((out[0] as Step[])[0]?.count).toBe(2);
    expect((out[1] as Step[])[0]?.count).toBe(2);
    expect((out[2] as Step[])[0]?.count).toBe(4);
  });

  it('keeps a cohort nobody entered, with zeros, and refuses unknown or malformed cohorts', async () => {
    const nobody = await cohort('Nobody', personIs('tier', 'platinum'));
    const out = (await funnel({ breakdownFilter: { breakdown_type: 'cohort', breakdown: [nobody] } }))
      .results as Step[][];
    expect(out).toHaveLength(1);
    expect(counts(out[0] as Step[])).toEqual([0, 0, 0]);
    expect((out[0] as Step[])[0]).toMatchObject({ breakdown: 'Nobody', breakdown_value: nobody });

    const unknown = await fails(h, project, {
      kind: 'FunnelsQuery',
      series: [
        { kind: 'EventsNode', event: '$pageview' },
        { kind: 'EventsNode', event: '$pageleave' },
      ],
      breakdownFilter: { breakdown_type: 'cohort', breakdown: [999_999] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({
      code: 'cohort_does_not_exist',
      attr: 'query__breakdownFilter__breakdown',
    });
    const malformed = await fails(h, project, {
      kind: 'FunnelsQuery',
      series: [
        { kind: 'EventsNode', event: '$pageview' },
        { kind: 'EventsNode', event: '$pageleave' },
      ],
      breakdownFilter: { breakdown_type: 'cohort', breakdown: ['gold'] },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.attr).toBe('query__breakdownFilter__breakdown');
  });
});
