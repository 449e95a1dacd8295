import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { breakdownValue, checkBreakdown } from '../../src/domain/insights/trends/breakdown.js';
import { seriesSelect } from '../../src/domain/insights/trends/query.js';
import { compileSelect } from '../../src/hogql/compile.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { DATASET_NOW, fails, run, sendDataset } from '../helpers/insights-dataset.js';
import { query } from '../helpers/query-lists.js';

/**
 * TrendsQuery with `breakdownFilter.breakdowns` (several breakdowns) on the fixed dataset of
 * helpers/insights-dataset.ts. Per person: p1 Chrome/gold (7 views, 6 leaves), p2 Firefox/silver
 * (6 views, 1 leave), p3 Edge/gold (1, 1), p4 Safari/no tier (1, 1).
 */
let h: Harness;
let project: number;

beforeAll(async () => {
  h = await startHarness({}, { now: () => DATASET_NOW });
  project = h.boot.project_id;
  await sendDataset(h, h.boot.project_api_key, project);
}, 60_000);
afterAll(async () => h?.close());

const RANGE = { date_from: '2020-01-09', date_to: '2020-01-20' };
const NULL = '$$_posthog_breakdown_null_$$';
const OTHER = '$$_posthog_breakdown_other_$$';
const views = { kind: 'EventsNode', event: '$pageview' };
const leaves = { kind: 'EventsNode', event: '$pageleave' };
const BROWSER = { type: 'event', property: '$browser' };
const TIER = { type: 'person', property: 'tier' };
const trends = (node: Record<string, unknown>) =>
  run(h, project, { kind: 'TrendsQuery', dateRange: RANGE, series: [views], ...node });

describe('TrendsQuery with several breakdowns', () => {
  it('breaks down by an event property and a person property, values as lists', async () => {
    const out = await trends({ breakdownFilter: { breakdowns: [BROWSER, TIER] } });
    // Ties (Edge/gold and Safari/none, 1 each) are ordered by value.
    expect(out.results.map((r) => [r.breakdown_value, r.label, r.count])).toEqual([
      [['Chrome', 'gold'], 'Chrome::gold', 7],
      [['Firefox', 'silver'], 'Firefox::silver', 6],
      [['Edge', 'gold'], 'Edge::gold', 1],
      [['Safari', NULL], `Safari::${NULL}`, 1],
    ]);
    // p1's views: 11, 12 (twice), 13, 15, 17, 19; p4's: 15.
    expect(out.results[0]?.data).toEqual([0, 0, 1, 2, 1, 0, 1, 0, 1, 0, 1, 0]);
    expect(out.results[3]?.data).toEqual([0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0]);
    expect(out.hasMore).toBe(false);
  });

  it('limits combinations by total and folds the rest into one "other" entry', async () => {
    const out = await trends({
      series: [{ kind: 'EventsNode', event: null }],
      breakdownFilter: { breakdowns: [BROWSER, { type: 'hogql', property: 'event' }], breakdown_limit: 3 },
    });
    // Chrome views 7, Chrome leaves 6 and Firefox views 6 are kept (tie ordered by value);
    // other: Firefox leave (13th), Edge view (12th) and leave (13th), Safari view (15th), leave (16th).
    expect(out.results.map((r) => [r.breakdown_value, r.count])).toEqual([
      [['Chrome', '$pageview'], 7],
      [['Chrome', '$pageleave'], 6],
      [['Firefox', '$pageview'], 6],
      [[OTHER, OTHER], 5],
    ]);
    expect(out.results[3]?.data).toEqual([0, 0, 0, 1, 2, 0, 1, 1, 0, 0, 0, 0]);
    expect(out.results[3]?.label).toBe(`${OTHER}::${OTHER}`);
    expect(out.hasMore).toBe(true);
    const hidden = await trends({
      series: [{ kind: 'EventsNode', event: null }],
      breakdownFilter: {
        breakdowns: [BROWSER, { type: 'hogql', property: 'event' }],
        breakdown_limit: 3,
        breakdown_hide_other_aggregation: true,
      },
    });
    expect(hidden.results.map((r) => r.count)).toEqual([7, 6, 6]);
  });

  it('labels several series "<series> - <v1>::<v2>" and applies a formula per combination', async () => {
    const breakdownFilter = { breakdowns: [BROWSER, TIER] };
    const two = await trends({ series: [views, leaves], breakdownFilter });
    expect(two.results.map((r) => [r.label, r.count])).toEqual([
      ['$pageview - Chrome::gold', 7],
      ['$pageview - Firefox::silver', 6],
      ['$pageview - Edge::gold', 1],
      [`$pageview - Safari::${NULL}`, 1],
      ['$pageleave - Chrome::gold', 6],
      ['$pageleave - Edge::gold', 1],
      ['$pageleave - Firefox::silver', 1],
      [`$pageleave - Safari::${NULL}`, 1],
    ]);
    const formula = await trends({
      series: [views, leaves],
      breakdownFilter,
      trendsFilter: { formula: 'A-B' },
    });
    expect(formula.results.map((r) => [r.breakdown_value, r.count])).toEqual([
      [['Chrome', 'gold'], 1],
      [['Firefox', 'silver'], 5],
      [['Edge', 'gold'], 0],
      [['Safari', NULL], 0],
    ]);
  });

  it('compares with the previous period per combination', async () => {
    // Current 15th-19th: p1 views 15, 17, 19; p2 15, 17, 19; p4 15. Previous 10th-14th: p1 11,
    // 12, 12, 13; p2 12, 13; p3 12.
    const out = await trends({
      dateRange: { date_from: '2020-01-15', date_to: '2020-01-19' },
      compareFilter: { compare: true },
      breakdownFilter: { breakdowns: [BROWSER, TIER] },
    });
    expect(out.results.map((r) => [r.compare_label, r.breakdown_value, r.count])).toEqual([
      ['current', ['Chrome', 'gold'], 3],
      ['current', ['Firefox', 'silver'], 3],
      ['current', ['Safari', NULL], 1],
      ['previous', ['Chrome', 'gold'], 4],
      ['previous', ['Firefox', 'silver'], 2],
      ['previous', ['Edge', 'gold'], 1],
    ]);
  });

  it('answers a pie with one aggregated value per combination', async () => {
    const { results } = await trends({
      trendsFilter: { display: 'ActionsPie' },
      breakdownFilter: { breakdowns: [{ type: 'event', property: 'prop' }, TIER] },
    });
    expect(results.map((r) => [r.breakdown_value, r.aggregated_value])).toEqual([
      [['10', 'gold'], 7],
      [['20', 'silver'], 6],
      [['30', 'gold'], 1],
      [['40', NULL], 1],
    ]);
  });
});

describe('TrendsQuery breakdowns errors', () => {
  it.each([
    [
      'both breakdown and breakdowns',
      { breakdown: '$browser', breakdowns: [BROWSER] },
      'breakdownFilter.breakdowns',
    ],
    ['more than 3 breakdowns', { breakdowns: [BROWSER, TIER, BROWSER, TIER] }, 'breakdownFilter.breakdowns'],
    ['a list that is not a list', { breakdowns: BROWSER }, 'breakdownFilter.breakdowns'],
    [
      'a cohort breakdown',
      { breakdowns: [BROWSER, { type: 'cohort', property: 'x' }] },
      'breakdownFilter.breakdowns.1.type',
    ],
    [
      'a breakdown without property',
      { breakdowns: [{ type: 'event' }] },
      'breakdownFilter.breakdowns.0.property',
    ],
    [
      'a histogram',
      { breakdowns: [{ ...BROWSER, histogram_bin_count: 5 }] },
      'breakdownFilter.breakdowns.0.histogram_bin_count',
    ],
    ['a bad limit', { breakdowns: [BROWSER], breakdown_limit: 0 }, 'breakdownFilter.breakdown_limit'],
  ])('answers 400 for %s', async (_name, breakdownFilter, attr) => {
    const out = await fails(h, project, {
      kind: 'TrendsQuery',
      dateRange: RANGE,
      series: [views],
      breakdownFilter,
    });
    expect(out.status).toBe(400);
    // attr is the path in the request body (`query__…`), `__` between levels.
    expect(out.body).toMatchObject({
      type: 'validation_error',
      attr: `query__${attr.replaceAll('.', '__')}`,
    });
  });
});

describe('InsightActorsQuery over several breakdowns', () => {
  const source = {
    kind: 'TrendsQuery',
    dateRange: RANGE,
    series: [views],
    breakdownFilter: { breakdowns: [BROWSER, TIER] },
  };
  const ask = (extra: Record<string, unknown>) =>
    query(h, project, {
      kind: 'ActorsQuery',
      select: ['properties.name', 'event_count'],
      orderBy: ['properties.name ASC'],
      source: { kind: 'InsightActorsQuery', source, ...extra },
    });

  it('narrows to one combination of values', async () => {
    const day = await ask({ day: '2020-01-12', breakdown: ['Chrome', 'gold'] });
    expect(day.statusCode, day.body).toBe(200);
    expect(day.json().results).toEqual([['p1', 2]]);
    const none = await ask({ breakdown: ['Safari', NULL] });
    expect(none.json().results).toEqual([['p4', 1]]);
    const mismatch = await ask({ breakdown: ['Chrome', 'silver'] });
    expect(mismatch.json().results).toEqual([]);
  });

  it('answers 400 for a value list of the wrong length or the "other" entry', async () => {
    const short = await ask({ breakdown: ['Chrome'] });
    expect(short.statusCode).toBe(400);
    expect(short.json()).toMatchObject({ attr: 'query__breakdown' });
    expect((await ask({ breakdown: [OTHER, OTHER] })).statusCode).toBe(400);
  });
});

describe('printed SQL of several breakdowns', () => {
  it('carries the team guard on every table read', () => {
    const filter = checkBreakdown({
      breakdowns: [BROWSER, TIER, { type: 'session', property: '$entry_current_url' }],
    });
    const period = {
      interval: 'day' as const,
      buckets: [new Date('2020-01-09T00:00:00Z')],
      from: new Date('2020-01-09T00:00:00Z'),
      to: new Date('2020-01-10T00:00:00Z'),
      dateTo: new Date('2020-01-10T00:00:00Z'),
    };
    const spec = {
      series: views as never,
      math: 'total' as const,
      filters: [],
      breakdown: breakdownValue(filter!),
    };
    const { sql } = compileSelect(seriesSelect(spec, period), {
      teamId: 7,
      timezone: 'UTC',
      weekStartDay: 0,
      table: (t) => `db.${t}`,
    });
    const reads = [...sql.matchAll(/db\.(\w+) AS (\w+)/g)];
    expect(reads.map((r) => r[1]).sort()).toEqual(expect.arrayContaining(['events', 'person']));
    expect(reads.length).toBeGreaterThanOrEqual(3);
    for (const [, , alias] of reads) expect(sql).toContain(`equals(${alias}.team_id, 7)`);
  });
});
