import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import {
  DATASET_NOW,
  DAYS_9_TO_20,
  fails,
  type InsightResult,
  run,
  sendDataset,
} from '../helpers/insights-dataset.js';
import { capture, query, uuid } from '../helpers/query-lists.js';

/** TrendsQuery through POST /query on the fixed dataset (see helpers/insights-dataset.ts). */
let h: Harness;
let project: number;
let clock = DATASET_NOW;

beforeAll(async () => {
  h = await startHarness({}, { now: () => clock });
  project = h.boot.project_id;
  await sendDataset(h, h.boot.project_api_key, project);
}, 60_000);
afterAll(async () => h?.close());

const RANGE = { date_from: '2020-01-09', date_to: '2020-01-20' };
const pageview = (extra: Record<string, unknown> = {}) => ({
  kind: 'EventsNode',
  event: '$pageview',
  ...extra,
});
const trends = (node: Record<string, unknown>) =>
  run(h, project, { kind: 'TrendsQuery', dateRange: RANGE, series: [pageview()], ...node });

describe('TrendsQuery counts per day', () => {
  it('counts events per day with zero-filled buckets, days, labels and count', async () => {
    const { results } = await trends({});
    expect(results).toHaveLength(1);
    const r = results[0] as InsightResult;
    expect(r.data).toEqual([1, 0, 1, 4, 2, 0, 3, 0, 2, 0, 2, 0]);
    expect(r.days).toEqual(DAYS_9_TO_20);
    expect(r.labels.slice(0, 3)).toEqual(['9-Jan-2020', '10-Jan-2020', '11-Jan-2020']);
    expect(r.count).toBe(15);
    expect(r.label).toBe('$pageview');
    expect(r.order).toBe(0);
    expect(r.action).toMatchObject({
      id: '$pageview',
      type: 'events',
      order: 0,
      name: '$pageview',
      math: 'total',
    });
  });

  it('counts distinct persons per day with dau (p1 viewed twice on the 12th)', async () => {
    const { results } = await trends({ series: [pageview({ math: 'dau' })] });
    expect(results[0]?.data).toEqual([1, 0, 1, 3, 2, 0, 3, 0, 2, 0, 2, 0]);
    expect(results[0]?.count).toBe(14);
  });

  it('counts all events for a null event, labelled "All events"', async () => {
    const { results } = await trends({ series: [{ kind: 'EventsNode', event: null }] });
    expect(results[0]?.data).toEqual([1, 0, 2, 5, 5, 0, 4, 1, 3, 0, 3, 0]);
    expect(results[0]?.count).toBe(24);
    expect(results[0]?.label).toBe('All events');
  });

  it('counts unique sessions (p1 had two sessions on the 12th)', async () => {
    const { results } = await trends({
      series: [{ kind: 'EventsNode', event: null, math: 'unique_session' }],
    });
    expect(results[0]?.data).toEqual([1, 0, 1, 4, 3, 0, 3, 1, 2, 0, 2, 0]);
  });

  it('counts weekly active persons over the 7 days ending at each day', async () => {
    const { results } = await trends({ series: [pageview({ math: 'weekly_active' })] });
    expect(results[0]?.data).toEqual([1, 1, 2, 3, 3, 3, 4, 4, 4, 4, 3, 3]);
  });

  it('aggregates a property: sum, avg, min, max, median and HogQL math', async () => {
    const series = [
      pageview({ math: 'sum', math_property: 'prop' }),
      pageview({ math: 'avg', math_property: 'prop' }),
      pageview({ math: 'min', math_property: 'prop' }),
      pageview({ math: 'max', math_property: 'prop' }),
      pageview({ math: 'median', math_property: 'prop' }),
      pageview({ math: 'hogql', math_hogql: 'count() * 10' }),
    ];
    const { results } = await trends({ series });
    expect(results[0]?.data).toEqual([20, 0, 10, 70, 30, 0, 70, 0, 30, 0, 30, 0]);
    expect(results[0]?.count).toBe(260);
    // The 12th: p1 twice (10, 10), p2 (20), p3 (30).
    expect(results.slice(1).map((r) => r.data[3])).toEqual([17.5, 10, 30, 15, 40]);
    expect(results[1]?.data[6]).toBeCloseTo(70 / 3, 6);
    expect(results.map((r) => r.order)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('filters by event properties', async () => {
    const { results } = await trends({
      properties: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }],
    });
    expect(results[0]?.data).toEqual([0, 0, 1, 2, 1, 0, 1, 0, 1, 0, 1, 0]);
  });

  it('zero-fills a range without events', async () => {
    const { results } = await trends({ dateRange: { date_from: '2020-02-01', date_to: '2020-02-03' } });
    expect(results[0]).toMatchObject({
      data: [0, 0, 0],
      count: 0,
      days: ['2020-02-01', '2020-02-02', '2020-02-03'],
    });
  });

  it('resolves relative dates against the clock (-7d: the 13th to today)', async () => {
    const { results } = await trends({ dateRange: { date_from: '-7d' } });
    expect(results[0]?.days[0]).toBe('2020-01-13');
    expect(results[0]?.data).toEqual([2, 0, 3, 0, 2, 0, 2, 0]);
  });
});

describe('TrendsQuery intervals', () => {
  it('buckets by hour with time in days and labels', async () => {
    const { results } = await trends({
      interval: 'hour',
      dateRange: { date_from: '2020-01-12 10:00:00', date_to: '2020-01-12 14:00:00' },
    });
    expect(results[0]?.data).toEqual([0, 0, 3, 1, 0]);
    expect(results[0]?.days[2]).toBe('2020-01-12 12:00:00');
    expect(results[0]?.labels[2]).toBe('12-Jan 12:00');
  });

  it('buckets by week starting on Sunday and widens date_from to its week', async () => {
    const { results } = await trends({ interval: 'week' });
    expect(results[0]?.days).toEqual(['2020-01-05', '2020-01-12', '2020-01-19']);
    expect(results[0]?.data).toEqual([2, 11, 2]);
  });

  it('buckets by month and minute', async () => {
    const month = await trends({ interval: 'month' });
    expect(month.results[0]).toMatchObject({ days: ['2020-01-01'], data: [15] });
    const minute = await trends({
      interval: 'minute',
      dateRange: { date_from: '2020-01-12 12:59:00', date_to: '2020-01-12 13:01:00', explicitDate: true },
    });
    expect(minute.results[0]?.data).toEqual([0, 1, 0]);
  });
});

describe('TrendsQuery breakdowns', () => {
  it('keeps the top values by total and folds the rest into "other"', async () => {
    const out = await trends({ breakdownFilter: { breakdown: '$browser', breakdown_limit: 2 } });
    expect(out.results.map((r) => [r.breakdown_value, r.label, r.count])).toEqual([
      ['Chrome', 'Chrome', 7],
      ['Firefox', 'Firefox', 6],
      ['$$_posthog_breakdown_other_$$', '$$_posthog_breakdown_other_$$', 2],
    ]);
    expect(out.results[0]?.data).toEqual([0, 0, 1, 2, 1, 0, 1, 0, 1, 0, 1, 0]);
    expect(out.results[2]?.data).toEqual([0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0]);
    expect(out.hasMore).toBe(true);
  });

  it('breaks down by person property, missing values as the null sentinel', async () => {
    const out = await trends({ breakdownFilter: { breakdown: 'tier', breakdown_type: 'person' } });
    expect(out.results.map((r) => [r.breakdown_value, r.count])).toEqual([
      ['gold', 8],
      ['silver', 6],
      ['$$_posthog_breakdown_null_$$', 1],
    ]);
    expect(out.hasMore).toBe(false);
  });

  it('breaks down by a HogQL expression and labels several series "<series> - <value>"', async () => {
    const out = await trends({
      series: [pageview(), { kind: 'EventsNode', event: '$pageleave' }],
      breakdownFilter: {
        breakdown: "if(toFloat(properties.prop) > 15, 'high', 'low')",
        breakdown_type: 'hogql',
      },
    });
    expect(out.results.map((r) => [r.label, r.count])).toEqual([
      ['$pageview - high', 8],
      ['$pageview - low', 7],
      ['$pageleave - low', 6],
      ['$pageleave - high', 3],
    ]);
  });
});

describe('TrendsQuery compare, formulas and total values', () => {
  it('compares with the previous period of the same length', async () => {
    const { results } = await trends({
      dateRange: { date_from: '2020-01-15', date_to: '2020-01-19' },
      compareFilter: { compare: true },
    });
    expect(results.map((r) => [r.compare, r.compare_label, r.data, r.count])).toEqual([
      [true, 'current', [3, 0, 2, 0, 2], 7],
      [true, 'previous', [0, 1, 4, 2, 0], 7],
    ]);
    expect(results[1]?.days).toEqual(['2020-01-10', '2020-01-11', '2020-01-12', '2020-01-13', '2020-01-14']);
  });

  it('compares with a chosen offset (compare_to -1w)', async () => {
    const { results } = await trends({
      dateRange: { date_from: '2020-01-15', date_to: '2020-01-19' },
      compareFilter: { compare: true, compare_to: '-1w' },
    });
    expect(results[1]).toMatchObject({
      compare_label: 'previous',
      data: [0, 1, 0, 1, 4],
      days: expect.arrayContaining(['2020-01-08']),
    });
  });

  it('evaluates a formula over the series (A+2*B)', async () => {
    const { results } = await trends({
      series: [pageview(), { kind: 'EventsNode', event: '$pageleave' }],
      trendsFilter: { formula: 'A+2*B' },
    });
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ label: 'Formula (A+2*B)', action: null, count: 33 });
    expect(results[0]?.data).toEqual([1, 0, 3, 6, 8, 0, 5, 2, 4, 0, 4, 0]);
  });

  it('answers total-value displays with one aggregated value per series', async () => {
    const { results } = await trends({
      series: [pageview(), pageview({ math: 'dau' }), pageview({ math: 'weekly_active' })],
      trendsFilter: { display: 'BoldNumber' },
    });
    // Weekly active: the 7 days ending with the range (14th-20th): p1, p2, p4.
    expect(results.map((r) => [r.aggregated_value, r.count, r.data])).toEqual([
      [15, 0, []],
      [4, 0, []],
      [3, 0, []],
    ]);
  });

  it('answers a pie with one value per breakdown value, largest first', async () => {
    const { results } = await trends({
      trendsFilter: { display: 'ActionsPie' },
      breakdownFilter: { breakdown: '$browser' },
    });
    expect(results.map((r) => [r.breakdown_value, r.aggregated_value])).toEqual([
      ['Chrome', 7],
      ['Firefox', 6],
      ['Edge', 1],
      ['Safari', 1],
    ]);
  });

  it('applies a formula per breakdown value', async () => {
    const { results } = await trends({
      series: [pageview(), { kind: 'EventsNode', event: '$pageleave' }],
      trendsFilter: { formula: 'A-B' },
      breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 },
    });
    // Chrome: 7 views - 6 leaves; other: 8 views - 3 leaves.
    expect(results.map((r) => [r.breakdown_value, r.count])).toEqual([
      ['Chrome', 1],
      ['$$_posthog_breakdown_other_$$', 5],
    ]);
  });

  it('accumulates with the cumulative line display', async () => {
    const { results } = await trends({ trendsFilter: { display: 'ActionsLineGraphCumulative' } });
    expect(results[0]?.data).toEqual([1, 1, 2, 6, 8, 8, 11, 11, 13, 13, 15, 15]);
    expect(results[0]?.count).toBe(15);
  });
});

describe('TrendsQuery in another timezone', () => {
  it('buckets in the project timezone (Pacific/Auckland, UTC+13: every event a day later) with Monday weeks', async () => {
    const res = await h.request('POST', '/api/organizations/@current/projects/', {
      body: { name: 'Auckland', timezone: 'Pacific/Auckland', week_start_day: 1 },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { id, api_token } = res.json() as { id: number; api_token: string };
    await sendDataset(h, api_token, id);
    const node = { kind: 'TrendsQuery', dateRange: RANGE, series: [pageview()] };
    const day = await run(h, id, node);
    expect(day.results[0]?.data).toEqual([0, 1, 0, 1, 4, 2, 0, 3, 0, 2, 0, 2]);
    const week = await run(h, id, { ...node, interval: 'week' });
    // Monday weeks: 6 Jan (views on the 10th and 12th local), 13 Jan, 20 Jan.
    expect(week.results[0]?.days).toEqual(['2020-01-06', '2020-01-13', '2020-01-20']);
    expect(week.results[0]?.data).toEqual([2, 11, 2]);
  }, 60_000);
});

describe('TrendsQuery across a DST change, at midnight and without test accounts', () => {
  // America/New_York moved to EDT at 2020-03-08 02:00 local (07:00 UTC).
  let ny: number;
  beforeAll(async () => {
    const res = await h.request('POST', '/api/organizations/@current/projects/', {
      body: {
        name: 'New York',
        timezone: 'America/New_York',
        test_account_filters: [
          { key: 'email', value: '@internal.com', operator: 'not_icontains', type: 'person' },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { id, api_token } = res.json() as { id: number; api_token: string };
    ny = id;
    const ev = (distinct_id: string, timestamp: string, $set: Record<string, unknown> = {}) => ({
      event: '$pageview',
      distinct_id,
      timestamp,
      uuid: uuid(),
      properties: { $set },
    });
    await capture(h, api_token, id, [
      ev('u1', '2020-03-08T04:30:00Z'), // 7 Mar 23:30 EST
      ev('u1', '2020-03-08T05:00:00Z'), // 8 Mar 00:00 EST: the first instant of the 8th
      ev('staff', '2020-03-08T15:00:00Z', { email: 'x@internal.com' }),
      ev('u2', '2020-03-09T03:30:00Z'), // 8 Mar 23:30 EDT
      ev('u2', '2020-03-09T04:00:00Z'), // 9 Mar 00:00 EDT
    ]);
  }, 60_000);

  const nyTrends = (node: Record<string, unknown>) =>
    run(h, ny, {
      kind: 'TrendsQuery',
      series: [pageview()],
      dateRange: { date_from: '2020-03-07', date_to: '2020-03-09' },
      ...node,
    });

  it('puts events in local days on both sides of the change, midnight in the new day', async () => {
    const { results } = await nyTrends({});
    expect(results[0]).toMatchObject({ days: ['2020-03-07', '2020-03-08', '2020-03-09'], data: [1, 3, 1] });
  });

  it('skips the missing local hour with hour buckets', async () => {
    const { results } = await nyTrends({
      interval: 'hour',
      dateRange: { date_from: '2020-03-08 00:00:00', date_to: '2020-03-08 04:00:00' },
    });
    expect(results[0]?.days).toEqual([
      '2020-03-08 00:00:00',
      '2020-03-08 01:00:00',
      '2020-03-08 03:00:00',
      '2020-03-08 04:00:00',
    ]);
    expect(results[0]?.data).toEqual([1, 0, 0, 0]);
  });

  it("leaves out the project's test accounts with filterTestAccounts", async () => {
    const { results } = await nyTrends({ filterTestAccounts: true });
    expect(results[0]?.data).toEqual([1, 2, 1]);
  });
});

describe('TrendsQuery caching', () => {
  const ask = async (node: Record<string, unknown>) => {
    const res = await query(h, project, { kind: 'TrendsQuery', series: [pageview()], ...node }, h.key, {
      refresh: 'blocking',
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { is_cached: boolean; results: Array<{ count: number }> };
  };

  it('keeps serving a range that ended before its calculation, and recalculates a daily one after 6 hours', async () => {
    const past = { dateRange: { date_from: '2020-01-09', date_to: '2020-01-19' } };
    const today = { dateRange: { date_from: '-3d' } };
    try {
      expect((await ask(past)).is_cached).toBe(false);
      expect((await ask(today)).is_cached).toBe(false);
      expect((await ask(today)).is_cached).toBe(true);
      clock = new Date(DATASET_NOW.getTime() + 7 * 3_600_000);
      expect((await ask(today)).is_cached).toBe(false);
      clock = new Date(DATASET_NOW.getTime() + 2 * 86_400_000);
      const again = await ask(past);
      expect(again.is_cached).toBe(true);
      expect(again.results[0]?.count).toBe(15);
    } finally {
      clock = DATASET_NOW;
    }
  });
});

describe('TrendsQuery errors', () => {
  it.each([
    ['an unknown math', { series: [pageview({ math: 'bogus' })] }, 'query__series__0__math'],
    [
      'a property math without a property',
      { series: [pageview({ math: 'sum' })] },
      'query__series__0__math_property',
    ],
    ['an unknown interval', { interval: 'year' }, 'query__interval'],
    ['an actions series', { series: [{ kind: 'ActionsNode', id: 1 }] }, 'query__series__0'],
    ['missing series', { series: undefined }, 'query__series'],
    [
      'a formula naming a missing series',
      { trendsFilter: { formula: 'A+C' } },
      'query__trendsFilter__formula',
    ],
    [
      'an unsupported breakdown type',
      { breakdownFilter: { breakdown: 1, breakdown_type: 'data_warehouse' } },
      'query__breakdownFilter__breakdown_type',
    ],
    ['a bad date', { dateRange: { date_from: 'someday' } }, 'query__date_from'],
    [
      'more points than one query may return (8 472 hours × 15 values)',
      {
        interval: 'hour',
        dateRange: { date_from: '2019-02-01', date_to: '2020-01-20' },
        breakdownFilter: { breakdown: 'toString(uuid)', breakdown_type: 'hogql' },
      },
      'query__interval',
    ],
    [
      'weekly active by minute',
      { interval: 'minute', series: [pageview({ math: 'weekly_active' })] },
      'query__series__0__math',
    ],
  ])('answers 400 for %s', async (_name, patch, attr) => {
    const out = await fails(h, project, {
      kind: 'TrendsQuery',
      dateRange: RANGE,
      series: [pageview()],
      ...patch,
    });
    expect(out.status).toBe(400);
    expect(out.body).toMatchObject({ type: 'validation_error', attr });
  });

  it('answers 400 for a HogQL breakdown that does not parse', async () => {
    const out = await fails(h, project, {
      kind: 'TrendsQuery',
      dateRange: RANGE,
      series: [pageview()],
      breakdownFilter: { breakdown: 'properties.(', breakdown_type: 'hogql' },
    });
    expect(out.status).toBe(400);
  });
});

describe('InsightActorsQuery over a TrendsQuery', () => {
  const names = async (source: Record<string, unknown>) => {
    const res = await query(h, project, {
      kind: 'ActorsQuery',
      select: ['properties.name', 'event_count'],
      orderBy: ['properties.name ASC'],
      source: { kind: 'InsightActorsQuery', ...source },
    });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { results: unknown[][] }).results;
  };
  const source = (node: Record<string, unknown> = {}) => ({
    kind: 'TrendsQuery',
    dateRange: RANGE,
    series: [pageview()],
    ...node,
  });

  it('lists the persons of one day with their event counts', async () => {
    expect(await names({ source: source(), day: '2020-01-12' })).toEqual([
      ['p1', 2],
      ['p2', 1],
      ['p3', 1],
    ]);
  });

  it('narrows to a breakdown value, a series and the previous period', async () => {
    const breakdown = source({ breakdownFilter: { breakdown: '$browser' } });
    expect(await names({ source: breakdown, day: '2020-01-15', breakdown: 'Safari' })).toEqual([['p4', 1]]);
    const two = source({ series: [pageview(), { kind: 'EventsNode', event: '$pageleave' }] });
    expect(await names({ source: two, series: 1, day: '2020-01-16' })).toEqual([['p4', 1]]);
    const compared = source({
      dateRange: { date_from: '2020-01-15', date_to: '2020-01-19' },
      compareFilter: { compare: true },
    });
    expect(await names({ source: compared, compare: 'previous', day: '2020-01-09' })).toEqual([]);
    expect((await names({ source: compared, compare: 'previous' })).map((r) => r[0])).toEqual([
      'p1',
      'p2',
      'p3',
    ]);
  });

  it('lists the weekly active persons of a day over its 7-day window', async () => {
    const wau = source({ series: [pageview({ math: 'weekly_active' })] });
    expect((await names({ source: wau, day: '2020-01-19' })).map((r) => r[0])).toEqual(['p1', 'p2', 'p4']);
  });

  it('answers 400 for a series the source does not have', async () => {
    const res = await query(h, project, {
      kind: 'ActorsQuery',
      source: { kind: 'InsightActorsQuery', source: source(), series: 3 },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ attr: 'query__source' });
  });
});
