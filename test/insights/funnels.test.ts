import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { funnelPersonsQuery } from '../../src/domain/insights/funnels/persons.js';
import { funnelSpec } from '../../src/domain/insights/funnels/spec.js';
import { stepsAggregateQuery } from '../../src/domain/insights/funnels/steps.js';
import { resolveDateRange } from '../../src/domain/time/date-range.js';
import { compileSelect } from '../../src/hogql/compile.js';
import { loadParser } from '../../src/hogql/parse.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, ok, query, type RawEvent, uuid } from '../helpers/query-lists.js';

/**
 * FunnelsQuery through POST /query on real stores. Eight people on fixed dates (UTC project):
 *   p1 signup 06-02 10:00 (Chrome), activate 11:00 (Chrome), purchase 13:00 (Safari)  → 3 steps
 *   p2 signup 06-03 10:00 (Firefox), activate 10:30 (Chrome)                          → 2 steps
 *   p3 signup 06-04 10:00                                                             → 1 step
 *   p4 activate 06-05 09:00, signup 10:00, purchase 11:00  (out of order)             → 1 ordered, 3 unordered
 *   p5 signup 06-06 10:00, $pageview 10:10, activate 10:20, purchase 10:30            → 3 ordered, 1 strict
 *   p6 signup 06-01 10:00, activate 06-20 10:00 (19 days later)                       → 1 (2 with a 30-day window)
 *   p7 signup 06-07 10:00, cancel 10:05, activate 10:10                               → 2, excluded with `cancel`
 *   p8 signup 06-02 15:00                                                             → 1 step
 */
const NOW = new Date('2025-07-01T12:00:00.000Z');
let h: Harness;
let project: number;

const ev = (
  event: string,
  distinct_id: string,
  timestamp: string,
  properties: Record<string, unknown> = {},
): RawEvent => ({
  event,
  distinct_id,
  timestamp: `2025-${timestamp}:00Z`,
  uuid: uuid(),
  properties,
});

beforeAll(async () => {
  h = await startHarness({}, { now: () => NOW });
  project = h.boot.project_id;
  await capture(h, h.boot.project_api_key, project, [
    ev('signup', 'p1', '06-02T10:00', { $browser: 'Chrome', $set: { plan: 'pro' } }),
    ev('activate', 'p1', '06-02T11:00', { $browser: 'Chrome' }),
    ev('purchase', 'p1', '06-02T13:00', { $browser: 'Safari' }),
    ev('signup', 'p2', '06-03T10:00', { $browser: 'Firefox', $set: { plan: 'free' } }),
    ev('activate', 'p2', '06-03T10:30', { $browser: 'Chrome' }),
    ev('signup', 'p3', '06-04T10:00'),
    ev('activate', 'p4', '06-05T09:00'),
    ev('signup', 'p4', '06-05T10:00'),
    ev('purchase', 'p4', '06-05T11:00'),
    ev('signup', 'p5', '06-06T10:00'),
    ev('$pageview', 'p5', '06-06T10:10'),
    ev('activate', 'p5', '06-06T10:20'),
    ev('purchase', 'p5', '06-06T10:30'),
    ev('signup', 'p6', '06-01T10:00'),
    ev('activate', 'p6', '06-20T10:00'),
    ev('signup', 'p7', '06-07T10:00'),
    ev('cancel', 'p7', '06-07T10:05'),
    ev('activate', 'p7', '06-07T10:10'),
    ev('signup', 'p8', '06-02T15:00'),
  ]);
});
afterAll(async () => h?.close());

const STEPS = [
  { kind: 'EventsNode', event: 'signup' },
  { kind: 'EventsNode', event: 'activate', custom_name: 'Activated' },
  { kind: 'EventsNode', event: 'purchase' },
];
const JUNE = { date_from: '2025-06-01', date_to: '2025-06-30' };

async function funnel(extra: Record<string, unknown> = {}, funnelsFilter: Record<string, unknown> = {}) {
  const out = await ok(h, project, {
    kind: 'FunnelsQuery',
    series: STEPS,
    dateRange: JUNE,
    funnelsFilter,
    ...extra,
  });
  return out.results as unknown as Array<Record<string, unknown>>;
}
const counts = (steps: Array<Record<string, unknown>>) => steps.map((s) => s.count);

describe('FunnelsQuery steps', () => {
  it('counts ordered funnels (the default) with PostHog step objects and conversion times', async () => {
    const steps = await funnel();
    expect(steps).toEqual([
      {
        action_id: 'signup',
        name: 'signup',
        custom_name: null,
        order: 0,
        people: [],
        count: 8,
        type: 'events',
        average_conversion_time: null,
        median_conversion_time: null,
      },
      {
        action_id: 'activate',
        name: 'activate',
        custom_name: 'Activated',
        order: 1,
        people: [],
        count: 4,
        type: 'events',
        // p1 3600, p2 1800, p5 1200, p7 600 seconds
        average_conversion_time: 1800,
        median_conversion_time: 1500,
      },
      {
        action_id: 'purchase',
        name: 'purchase',
        custom_name: null,
        order: 2,
        people: [],
        count: 2,
        type: 'events',
        // p1 7200, p5 600
        average_conversion_time: 3900,
        median_conversion_time: 3900,
      },
    ]);
  });

  it('needs a separate event for each step when steps repeat an event', async () => {
    const twice = [STEPS[0], STEPS[0]];
    expect(counts(await funnel({ series: twice }))).toEqual([8, 0]);
    const views = [STEPS[0], { kind: 'EventsNode', event: null }];
    // any event after signup: everyone but p3 and p8 (nothing after) and p6 (19 days later)
    expect(counts(await funnel({ series: views }))).toEqual([8, 5]);
  });

  it('strict funnels break on any other event in between', async () => {
    expect(counts(await funnel({}, { funnelOrderType: 'strict' }))).toEqual([8, 2, 1]);
  });

  it('unordered funnels count steps in any order within the window, named by steps completed', async () => {
    const steps = await funnel({}, { funnelOrderType: 'unordered' });
    expect(counts(steps)).toEqual([8, 5, 3]);
    expect(steps.map((s) => [s.name, s.action_id, s.custom_name])).toEqual([
      ['Completed 1 step', null, null],
      ['Completed 2 steps', null, null],
      ['Completed 3 steps', null, null],
    ]);
    // step 2: p1 3600, p2 1800, p4 3600, p5 1200, p7 600; step 3: p1 7200, p4 3600, p5 600
    expect(steps[1]?.average_conversion_time).toBe(2160);
    expect(steps[2]?.average_conversion_time).toBe(3800);
  });

  it('applies the conversion window: 19 days only converts with a longer window', async () => {
    expect(counts(await funnel({}, { funnelWindowInterval: 30, funnelWindowIntervalUnit: 'day' }))).toEqual([
      8, 5, 2,
    ]);
    expect(counts(await funnel({}, { funnelWindowInterval: 2, funnelWindowIntervalUnit: 'week' }))).toEqual([
      8, 4, 2,
    ]);
    // one hour: p1 reaches activate at exactly 1 h, not purchase at 3 h; p5 all within 30 min
    expect(counts(await funnel({}, { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'hour' }))).toEqual([
      8, 4, 1,
    ]);
  });

  it('drops people with an excluded event between the exclusion steps', async () => {
    const exclusions = [{ kind: 'EventsNode', event: 'cancel', funnelFromStep: 0, funnelToStep: 1 }];
    expect(counts(await funnel({}, { exclusions }))).toEqual([7, 3, 2]);
    const later = [{ kind: 'EventsNode', event: 'cancel', funnelFromStep: 1, funnelToStep: 2 }];
    expect(counts(await funnel({}, { exclusions: later }))).toEqual([8, 4, 2]);
  });

  it('applies step and global property filters and the date range', async () => {
    const series = [
      {
        kind: 'EventsNode',
        event: 'signup',
        properties: [{ key: '$browser', value: 'Chrome', type: 'event' }],
      },
      STEPS[1],
    ];
    expect(counts(await funnel({ series }))).toEqual([1, 1]);
    const early = await funnel({ dateRange: { date_from: '2025-06-01', date_to: '2025-06-03' } });
    expect(counts(early)).toEqual([4, 2, 1]);
  });
});

describe('FunnelsQuery test accounts', () => {
  it('filters the project test accounts out with filterTestAccounts', async () => {
    const res = await h.request('PATCH', `/api/projects/${project}/`, {
      body: { test_account_filters: [{ key: "distinct_id != 'p1'", type: 'hogql' }] },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(counts(await funnel({ filterTestAccounts: true }))).toEqual([7, 3, 1]);
    expect(counts(await funnel({ filterTestAccounts: false }))).toEqual([8, 4, 2]);
  });

  it('does not serve a cached result computed with the project test-account filters as they were', async () => {
    const blocking = async () => {
      const res = await query(
        h,
        project,
        { kind: 'FunnelsQuery', series: STEPS, dateRange: JUNE, filterTestAccounts: true },
        h.key,
        { refresh: 'blocking' },
      );
      expect(res.statusCode, res.body).toBe(200);
      return counts(res.json().results);
    };
    const filter = (id: string) =>
      h.request('PATCH', `/api/projects/${project}/`, {
        body: { test_account_filters: [{ key: `distinct_id != '${id}'`, type: 'hogql' }] },
      });
    await filter('p1');
    expect(await blocking()).toEqual([7, 3, 1]);
    await filter('p2');
    // Without p2 (signup, activate) instead of p1 (all three steps).
    expect(await blocking()).toEqual([7, 3, 2]);
  });
});

describe('FunnelsQuery breakdowns', () => {
  const breakdown = (attribution?: string) =>
    funnel(
      { breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } },
      attribution ? { breakdownAttributionType: attribution } : {},
    );
  const summary = (results: Array<Record<string, unknown>>) =>
    (results as unknown as Array<Array<Record<string, unknown>>>).map((steps) => [
      steps[0]?.breakdown_value,
      counts(steps),
    ]);

  it('attributes to the first step by default', async () => {
    const results = await breakdown();
    expect(summary(results)).toEqual([
      [[''], [6, 2, 1]],
      [['Chrome'], [1, 1, 1]],
      [['Firefox'], [1, 1, 0]],
    ]);
    const first = (results as unknown as Array<Array<Record<string, unknown>>>)[1]?.[0];
    expect(first).toMatchObject({
      breakdown: ['Chrome'],
      breakdown_value: ['Chrome'],
      name: 'signup',
      order: 0,
    });
  });

  it('breaks down by a person property', async () => {
    const results = await funnel({ breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' } });
    expect(summary(results)).toEqual([
      [[''], [6, 2, 1]],
      [['free'], [1, 1, 0]],
      [['pro'], [1, 1, 1]],
    ]);
    const limited = await funnel({
      breakdownFilter: { breakdown: 'plan', breakdown_type: 'person', breakdown_limit: 1 },
    });
    expect(summary(limited)).toEqual([[[''], [6, 2, 1]]]);
  });

  it('attributes to the last step reached with last_touch', async () => {
    expect(summary(await breakdown('last_touch'))).toEqual([
      [[''], [6, 2, 1]],
      [['Chrome'], [1, 1, 0]],
      [['Safari'], [1, 1, 1]],
    ]);
  });

  it('attributes to a chosen step with step attribution', async () => {
    const results = await funnel(
      { breakdownFilter: { breakdown: '$browser' } },
      { breakdownAttributionType: 'step', breakdownAttributionValue: 1 },
    );
    expect(summary(results)).toEqual([
      [[''], [6, 2, 1]],
      [['Chrome'], [2, 2, 1]],
    ]);
  });

  it('with all_events counts a path only where every step has the same value', async () => {
    expect(summary(await breakdown('all_events'))).toEqual([
      [[''], [6, 2, 1]],
      // p1: Chrome signup and activate, Safari purchase; p2's Chrome activate has no Chrome signup
      [['Chrome'], [1, 1, 0]],
      [['Firefox'], [1, 0, 0]],
    ]);
  });
});

describe('FunnelsQuery other visualisations', () => {
  it('time_to_convert bins the seconds between the chosen steps', async () => {
    const out = await funnel({}, { funnelVizType: 'time_to_convert', funnelFromStep: 0, funnelToStep: 1 });
    // 600, 1200, 1800, 3600 s: 2 bins (cbrt 4) of 1500 s from 600, plus one past the end
    expect(out).toEqual({
      average_conversion_time: 1800,
      bins: [
        [600, 3],
        [2100, 0],
        [3600, 1],
      ],
    });
    const custom = await funnel({}, { funnelVizType: 'time_to_convert', funnelToStep: 1, binCount: 1 });
    // one bin of 3000 s: the maximum lands in the extra bin past the end
    expect(custom).toMatchObject({
      bins: [
        [600, 3],
        [3600, 1],
      ],
    });
  });

  it('trends show the conversion rate per day people entered, zero-filled', async () => {
    const out = await funnel(
      { dateRange: { date_from: '2025-06-01', date_to: '2025-06-07' } },
      { funnelVizType: 'trends' },
    );
    expect(out).toEqual([
      {
        count: 7,
        data: [0, 50, 0, 0, 0, 100, 0],
        days: [
          '2025-06-01',
          '2025-06-02',
          '2025-06-03',
          '2025-06-04',
          '2025-06-05',
          '2025-06-06',
          '2025-06-07',
        ],
        labels: [
          '1-Jun-2025',
          '2-Jun-2025',
          '3-Jun-2025',
          '4-Jun-2025',
          '5-Jun-2025',
          '6-Jun-2025',
          '7-Jun-2025',
        ],
      },
    ]);
  });
});

describe('FunnelsActorsQuery', () => {
  const people = async (extra: Record<string, unknown>, funnel: Record<string, unknown> = {}) => {
    const out = await ok(h, project, {
      kind: 'ActorsQuery',
      select: ['person'],
      source: {
        kind: 'FunnelsActorsQuery',
        source: { kind: 'FunnelsQuery', series: STEPS, dateRange: JUNE, ...funnel },
        ...extra,
      },
    });
    return (out.results as Array<[{ distinct_ids: string[] }]>).flatMap((r) => r[0].distinct_ids).sort();
  };

  it('lists who converted to a step and who dropped off before it', async () => {
    expect(await people({ funnelStep: 2 })).toEqual(['p1', 'p2', 'p5', 'p7']);
    expect(await people({ funnelStep: -2 })).toEqual(['p3', 'p4', 'p6', 'p8']);
    expect(await people({ funnelStep: -3 })).toEqual(['p2', 'p7']);
  });

  it('narrows to a breakdown value', async () => {
    const funnel = { breakdownFilter: { breakdown: '$browser' } };
    expect(await people({ funnelStep: 1, funnelStepBreakdown: ['Firefox'] }, funnel)).toEqual(['p2']);
  });

  it('rejects a step outside the funnel', async () => {
    const res = await query(h, project, {
      kind: 'ActorsQuery',
      source: { kind: 'FunnelsActorsQuery', source: { kind: 'FunnelsQuery', series: STEPS }, funnelStep: 4 },
    });
    expect(res.statusCode).toBe(400);
  });
});

describe('FunnelsQuery errors', () => {
  const bad = async (node: Record<string, unknown>) => {
    const res = await query(h, project, { kind: 'FunnelsQuery', series: STEPS, ...node });
    expect(res.statusCode).toBe(400);
    return res.json() as { type: string; detail: string; attr: string | null };
  };

  it('needs at least two steps', async () => {
    const body = await bad({ series: [STEPS[0]] });
    expect(body).toMatchObject({
      type: 'validation_error',
      detail: 'Funnels require at least two steps before calculating.',
    });
  });

  it('rejects a bad window unit, order type or step index', async () => {
    expect((await bad({ funnelsFilter: { funnelWindowIntervalUnit: 'fortnight' } })).attr).toBe(
      'query__funnelWindowIntervalUnit',
    );
    expect((await bad({ funnelsFilter: { funnelWindowInterval: 0 } })).attr).toBe(
      'query__funnelWindowInterval',
    );
    expect((await bad({ funnelsFilter: { funnelOrderType: 'random' } })).attr).toBe('query__funnelOrderType');
    expect(
      (
        await bad({
          funnelsFilter: {
            exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: 1, funnelToStep: 1 }],
          },
        })
      ).attr,
    ).toBe('query__exclusions');
  });

  it('rejects malformed filters and dates instead of failing', async () => {
    expect((await bad({ funnelsFilter: { exclusions: { event: 'x' } } })).attr).toBe('query__exclusions');
    expect((await bad({ series: [STEPS[0], 'activate'] })).attr).toBe('query__series__1');
    expect((await bad({ breakdownFilter: { breakdown: ['a', 'b'] } })).attr).toBe('query__breakdownFilter');
    expect((await bad({ dateRange: { date_from: 'not a date' } })).type).toBe('validation_error');
  });

  it('rejects unknown actions and data warehouse steps clearly', async () => {
    const actions = await bad({ series: [STEPS[0], { kind: 'ActionsNode', id: 1 }] });
    expect(actions.detail).toBe('Action 1 does not exist in this project.');
    const dw = await bad({ series: [STEPS[0], { kind: 'DataWarehouseNode', id: 'x', table_name: 't' }] });
    expect(dw.detail).toMatch(/^Data warehouse tables are not supported in funnels just yet/);
  });

  it('rejects a malformed client HogQL aggregation with a 400', async () => {
    const body = await bad({ funnelsFilter: { funnelAggregateByHogQL: 'properties.$x +' } });
    expect(body.type).toBe('validation_error');
  });
});

describe('FunnelsQuery printed SQL', () => {
  it('carries the team guard on every table it reads, joins included', async () => {
    await loadParser();
    const spec = funnelSpec({
      kind: 'FunnelsQuery',
      series: STEPS,
      breakdownFilter: { breakdown: 'email', breakdown_type: 'person' },
      funnelsFilter: {
        exclusions: [{ kind: 'EventsNode', event: 'cancel', funnelFromStep: 0, funnelToStep: 1 }],
      },
    });
    const range = resolveDateRange(JUNE, { timezone: 'UTC', now: NOW });
    const ast = stepsAggregateQuery(spec, funnelPersonsQuery(spec, range, null));
    const { sql } = compileSelect(ast, {
      teamId: 7,
      timezone: 'UTC',
      weekStartDay: 0,
      table: (t) => `db.${t}`,
    });
    const reads = [...sql.matchAll(/db\.(\w+) AS (\w+)/g)];
    expect(reads.map((r) => r[1]).sort()).toEqual(['events', 'person', 'person_distinct_id2']);
    for (const [, , alias] of reads) expect(sql).toContain(`equals(${alias}.team_id, 7)`);
  });
});
