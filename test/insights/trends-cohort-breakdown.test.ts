import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calculatedCohort, personIs } from '../helpers/cohorts.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { DATASET_NOW, fails, run, sendDataset } from '../helpers/insights-dataset.js';
import { ok, otherProject } from '../helpers/query-lists.js';

/**
 * TrendsQuery broken down by cohorts (`breakdown_type: "cohort"`), checked against hand-written
 * HogQL over the dataset of helpers/insights-dataset.ts: p1 Chrome/gold (7 views), p2
 * Firefox/silver (6), p3 Edge/gold (1), p4 Safari/no tier (1).
 */
let h: Harness;
let project: number;
let gold: number;
let firstTwo: number;

const cohort = (name: string, filters: unknown, projectId = project, key = h.key) =>
  calculatedCohort(h, projectId, name, filters, key);

beforeAll(async () => {
  h = await startHarness({}, { now: () => DATASET_NOW });
  project = h.boot.project_id;
  await sendDataset(h, h.boot.project_api_key, project);
  gold = await cohort('Gold tier', personIs('tier', 'gold'));
  firstTwo = await cohort('First two', personIs('name', ['p1', 'p2']));
}, 60_000);
afterAll(async () => h?.close());

const RANGE = { date_from: '2020-01-09', date_to: '2020-01-20' };
const views = { kind: 'EventsNode', event: '$pageview' };
const trends = (node: Record<string, unknown>) =>
  run(h, project, { kind: 'TrendsQuery', dateRange: RANGE, series: [views], ...node });

/** The oracle: views per day of the cohort's members, written by hand. */
async function oracle(cohortId: number | null): Promise<Map<string, number>> {
  const where = cohortId === null ? '' : `AND person_id IN COHORT ${cohortId}`;
  const out = await ok(h, project, {
    kind: 'HogQLQuery',
    query: `SELECT toString(toDate(timestamp)), count() FROM events WHERE event = '$pageview' ${where}
      AND timestamp >= toDateTime('2020-01-09 00:00:00') AND timestamp < toDateTime('2020-01-21 00:00:00')
      GROUP BY 1`,
  });
  return new Map(out.results.map((r) => [String(r[0]), Number(r[1])]));
}

describe('TrendsQuery broken down by cohort', () => {
  it('gives one series per cohort, valued by id, labelled by name, members counted in each', async () => {
    const out = await trends({
      breakdownFilter: { breakdown_type: 'cohort', breakdown: [gold, firstTwo, 'all'] },
    });
    expect(out.results.map((r) => [r.breakdown_value, r.label, r.count])).toEqual([
      [gold, '$pageview - Gold tier', 8],
      [firstTwo, '$pageview - First two', 13],
      ['all', '$pageview - all users', 15],
    ]);
    // p1 is in both cohorts: counted in each, as PostHog's query per cohort does.
    for (const [i, id] of [gold, firstTwo, null].entries()) {
      const expected = await oracle(id);
      const days = out.results[i]!.days as string[];
      expect(out.results[i]!.data).toEqual(days.map((d) => expected.get(d) ?? 0));
    }
  });

  it('takes one id as well as a list, and keeps empty cohorts as zero series', async () => {
    const nobody = await cohort('Nobody', personIs('tier', 'platinum'));
    const out = await trends({
      breakdownFilter: { breakdown_type: 'cohort', breakdown: nobody },
      trendsFilter: { display: 'BoldNumber' },
    });
    expect(out.results.map((r) => [r.breakdown_value, r.label, r.aggregated_value])).toEqual([
      [nobody, '$pageview - Nobody', 0],
    ]);
  });

  it('lists the persons behind one cohort group', async () => {
    const source = {
      kind: 'TrendsQuery',
      dateRange: RANGE,
      series: [views],
      breakdownFilter: { breakdown_type: 'cohort', breakdown: [gold, 'all'] },
    };
    const actors = async (breakdown: unknown) => {
      const out = await ok(h, project, {
        kind: 'ActorsQuery',
        source: { kind: 'InsightActorsQuery', source, breakdown },
        select: ['properties.name'],
        orderBy: ['properties.name'],
      });
      return out.results.map((r) => r[0]);
    };
    expect(await actors(gold)).toEqual(['p1', 'p3']);
    expect(await actors('all')).toEqual(['p1', 'p2', 'p3', 'p4']);
  });

  it("refuses another project's cohort and malformed ids with a 400", async () => {
    const other = await otherProject(h);
    const theirs = await cohort('Theirs', personIs('tier', 'gold'), other.projectId, other.key);
    const foreign = await fails(h, project, {
      kind: 'TrendsQuery',
      series: [views],
      breakdownFilter: { breakdown_type: 'cohort', breakdown: [gold, theirs] },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toMatchObject({
      code: 'cohort_does_not_exist',
      attr: 'query__breakdownFilter__breakdown',
    });
    const bad = await fails(h, project, {
      kind: 'TrendsQuery',
      series: [views],
      breakdownFilter: { breakdown_type: 'cohort', breakdown: ['gold'] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.attr).toBe('query__breakdownFilter__breakdown');
    // Funnels take cohort breakdowns too (test/insights/funnels-cohort-breakdown.test.ts), with the
    // same refusal of malformed ids.
    const funnel = await fails(h, project, {
      kind: 'FunnelsQuery',
      series: [views, views],
      breakdownFilter: { breakdown_type: 'cohort', breakdown: ['gold'] },
    });
    expect(funnel.status).toBe(400);
  });
});
