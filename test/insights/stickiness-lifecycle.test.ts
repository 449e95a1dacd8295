import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriesSelect } from '../../src/domain/insights/trends/query.js';
import { compileSelect } from '../../src/hogql/compile.js';
import { loadParser } from '../../src/hogql/parse.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { DATASET_NOW, DAYS_9_TO_20, fails, run, sendDataset } from '../helpers/insights-dataset.js';

/** StickinessQuery and LifecycleQuery through POST /query on the fixed dataset. */
let h: Harness;
let project: number;

beforeAll(async () => {
  h = await startHarness({}, { now: () => DATASET_NOW });
  project = h.boot.project_id;
  await sendDataset(h, h.boot.project_api_key, project);
}, 60_000);
afterAll(async () => h?.close());

const RANGE = { date_from: '2020-01-09', date_to: '2020-01-20' };
const pageview = { kind: 'EventsNode', event: '$pageview' };

describe('StickinessQuery', () => {
  it('counts persons by the number of days they viewed a page (p1, p2: 6 days; p3, p4: 1)', async () => {
    const { results } = await run(h, project, {
      kind: 'StickinessQuery',
      dateRange: RANGE,
      series: [pageview],
    });
    expect(results).toHaveLength(1);
    expect(results[0]?.data).toEqual([2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0]);
    expect(results[0]?.days).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(results[0]?.labels.slice(0, 2)).toEqual(['1 day', '2 days']);
    expect(results[0]).toMatchObject({ count: 4, label: '$pageview' });
  });

  it('counts by week and compares with the previous period', async () => {
    const week = await run(h, project, {
      kind: 'StickinessQuery',
      dateRange: RANGE,
      interval: 'week',
      series: [{ kind: 'EventsNode', event: '$pageleave' }],
    });
    // Weeks of 5, 12 and 19 Jan: p1 in all three, p2/p3/p4 in one.
    expect(week.results[0]?.data).toEqual([3, 0, 1]);
    expect(week.results[0]?.labels).toEqual(['1 week', '2 weeks', '3 weeks']);
    const compared = await run(h, project, {
      kind: 'StickinessQuery',
      dateRange: { date_from: '2020-01-15', date_to: '2020-01-19' },
      compareFilter: { compare: true },
      series: [pageview],
    });
    // 15-19: p1 and p2 on 3 days, p4 on 1; 10-14: p1 on 3 days (11-13), p2 on 2 (12, 13), p3 on 1.
    expect(compared.results.map((r) => [r.compare_label, r.data])).toEqual([
      ['current', [1, 0, 2, 0, 0]],
      ['previous', [1, 1, 1, 0, 0]],
    ]);
  });

  it('answers 400 for unsupported math and missing series', async () => {
    const math = await fails(h, project, {
      kind: 'StickinessQuery',
      series: [{ ...pageview, math: 'sum', math_property: 'prop' }],
    });
    expect(math).toMatchObject({ status: 400, body: { attr: 'query__series__0__math' } });
    const series = await fails(h, project, { kind: 'StickinessQuery' });
    expect(series).toMatchObject({ status: 400, body: { attr: 'query__series' } });
  });
});

describe('LifecycleQuery', () => {
  it('splits active persons into new, returning, resurrecting and dormant per day', async () => {
    const { results } = await run(h, project, {
      kind: 'LifecycleQuery',
      dateRange: RANGE,
      series: [pageview],
    });
    expect(results.map((r) => r.status)).toEqual(['new', 'returning', 'resurrecting', 'dormant']);
    const [fresh, returning, resurrecting, dormant] = results;
    expect(fresh?.data).toEqual([1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0]);
    expect(returning?.data).toEqual([0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0]);
    expect(resurrecting?.data).toEqual([0, 0, 0, 1, 0, 0, 2, 0, 2, 0, 2, 0]);
    expect(dormant?.data).toEqual([0, -1, 0, 0, -1, -2, 0, -3, 0, -2, 0, -2]);
    expect(dormant).toMatchObject({ count: -11, label: '$pageview - dormant', days: DAYS_9_TO_20 });
  });

  it('uses the interval before the range: a person active on the 12th returns on the 13th', async () => {
    const { results } = await run(h, project, {
      kind: 'LifecycleQuery',
      dateRange: { date_from: '2020-01-13', date_to: '2020-01-14' },
      series: [pageview],
    });
    expect(results.map((r) => r.data)).toEqual([
      [0, 0],
      [2, 0],
      [0, 0],
      [-1, -2],
    ]);
  });

  it('answers 400 for several series', async () => {
    const out = await fails(h, project, { kind: 'LifecycleQuery', series: [pageview, pageview] });
    expect(out).toMatchObject({ status: 400, body: { attr: 'query__series' } });
  });
});

describe('team guard', () => {
  it('guards every events read of a trends query with the team id', async () => {
    await loadParser();
    const period = {
      interval: 'day' as const,
      buckets: [new Date('2020-01-09T00:00:00Z')],
      from: new Date('2020-01-09T00:00:00Z'),
      to: new Date('2020-01-10T00:00:00Z'),
      dateTo: new Date('2020-01-09T23:59:59Z'),
    };
    for (const math of ['total', 'weekly_active'] as const) {
      const ast = seriesSelect(
        { series: { kind: 'EventsNode', event: 'x' }, math, filters: [], breakdown: null },
        period,
      );
      const { sql } = compileSelect(ast, {
        teamId: 4242,
        timezone: 'UTC',
        weekStartDay: 0,
        table: (t) => t,
        defaultLimit: null,
      });
      expect(sql).toMatch(/equals\(\w+\.team_id, 4242\)/);
    }
  });
});
