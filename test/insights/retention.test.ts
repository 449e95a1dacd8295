import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retentionQuery } from '../../src/domain/insights/retention.js';
import { cohortStarts, retentionSpec } from '../../src/domain/insights/retention-spec.js';
import { compileSelect } from '../../src/hogql/compile.js';
import { loadParser } from '../../src/hogql/parse.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, ok, query, type RawEvent, uuid } from '../helpers/query-lists.js';

/**
 * RetentionQuery through POST /query. Days 2025-06-01..05 (date_to 06-05, 5 intervals), UTC:
 *   r1 $pageview 06-01 (Chrome; person plan "pro"), 06-02, 06-04
 *   r2 $pageview 06-02, 06-03
 *   r3 $pageview 05-20 (before the range), 06-03, 06-05
 *   r4 signup 06-01, $pageview 06-03
 *   r5 $pageview 06-02 02:00 UTC (06-01 22:00 in New York)
 */
const NOW = new Date('2025-07-01T12:00:00.000Z');
let h: Harness;
let project: number;

const ev = (event: string, distinct_id: string, day: string, time = '12:00', properties = {}): RawEvent => ({
  event,
  distinct_id,
  timestamp: `2025-${day}T${time}:00Z`,
  uuid: uuid(),
  properties,
});
const DATASET = [
  ev('$pageview', 'r1', '06-01', '12:00', { $browser: 'Chrome', $set: { plan: 'pro' } }),
  ev('$pageview', 'r1', '06-02'),
  ev('$pageview', 'r1', '06-04'),
  ev('$pageview', 'r2', '06-02'),
  ev('$pageview', 'r2', '06-03'),
  ev('$pageview', 'r3', '05-20'),
  ev('$pageview', 'r3', '06-03'),
  ev('$pageview', 'r3', '06-05'),
  ev('signup', 'r4', '06-01'),
  ev('$pageview', 'r4', '06-03'),
  ev('$pageview', 'r5', '06-02', '02:00'),
];

beforeAll(async () => {
  h = await startHarness({}, { now: () => NOW });
  project = h.boot.project_id;
  await capture(h, h.boot.project_api_key, project, DATASET);
});
afterAll(async () => h?.close());

type Cohort = { values: Array<{ count: number; label?: string }>; label: string; date: string };

async function retention(filter: Record<string, unknown>, projectId = project) {
  const out = await ok(h, projectId, {
    kind: 'RetentionQuery',
    dateRange: { date_to: '2025-06-05' },
    retentionFilter: { totalIntervals: 5, ...filter },
  });
  return out.results as unknown as Cohort[];
}
const table = (cohorts: Cohort[]) => cohorts.map((c) => c.values.map((x) => x.count));

describe('RetentionQuery', () => {
  it('recurring (the default): every period with the target event is a cohort; PostHog shape', async () => {
    const cohorts = await retention({});
    expect(table(cohorts)).toEqual([[1, 1, 0, 1, 0], [3, 1, 1, 0], [3, 0, 1], [1, 0], [1]]);
    expect(cohorts[0]).toEqual({
      values: [
        { count: 1, label: 'Day 0' },
        { count: 1, label: 'Day 1' },
        { count: 0 },
        { count: 1, label: 'Day 3' },
        { count: 0 },
      ],
      label: 'Day 0',
      date: '2025-06-01T00:00:00Z',
    });
    expect(cohorts.map((c) => [c.label, c.date])).toEqual([
      ['Day 0', '2025-06-01T00:00:00Z'],
      ['Day 1', '2025-06-02T00:00:00Z'],
      ['Day 2', '2025-06-03T00:00:00Z'],
      ['Day 3', '2025-06-04T00:00:00Z'],
      ['Day 4', '2025-06-05T00:00:00Z'],
    ]);
  });

  it('first-time: only the period of the first target event ever (r3 started before the range)', async () => {
    expect(table(await retention({ retentionType: 'retention_first_time' }))).toEqual([
      [1, 1, 0, 1, 0],
      [2, 1, 0, 0],
      [1, 0, 0],
      [0, 0],
      [0],
    ]);
  });

  it('separate target and returning entities', async () => {
    const cohorts = await retention({
      targetEntity: { id: 'signup', type: 'events', name: 'signup' },
      returningEntity: { id: '$pageview', type: 'events', name: '$pageview' },
    });
    expect(table(cohorts)).toEqual([[1, 0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0], [0, 0], [0]]);
  });

  it('cumulative counts a return in any later period too', async () => {
    expect(table(await retention({ cumulative: true })).slice(0, 2)).toEqual([
      [1, 1, 1, 1, 0],
      [3, 2, 1, 0],
    ]);
  });

  it('breaks cohorts down by a person or event property', async () => {
    for (const breakdownFilter of [
      { breakdown: 'plan', breakdown_type: 'person' },
      { breakdown: '$browser', breakdown_type: 'event' },
    ]) {
      const out = await ok(h, project, {
        kind: 'RetentionQuery',
        dateRange: { date_to: '2025-06-05' },
        retentionFilter: { totalIntervals: 5 },
        breakdownFilter,
      });
      const cohorts = out.results as unknown as Array<Cohort & { breakdown_value: string }>;
      const value = breakdownFilter.breakdown === 'plan' ? 'pro' : 'Chrome';
      expect(cohorts.map((c) => c.breakdown_value)).toEqual([
        '',
        '',
        '',
        '',
        '',
        value,
        value,
        value,
        value,
        value,
      ]);
      expect(table(cohorts)).toEqual([
        [0, 0, 0, 0, 0],
        [2, 1, 0, 0],
        [3, 0, 1],
        [0, 0],
        [1],
        [1, 1, 0, 1, 0],
        [1, 0, 1, 0],
        [0, 0, 0],
        [1, 0],
        [0],
      ]);
    }
  });

  it('filters the project test accounts out with filterTestAccounts', async () => {
    const res = await h.request('PATCH', `/api/projects/${project}/`, {
      body: { test_account_filters: [{ key: "distinct_id != 'r1'", type: 'hogql' }] },
    });
    expect(res.statusCode, res.body).toBe(200);
    const out = await ok(h, project, {
      kind: 'RetentionQuery',
      dateRange: { date_to: '2025-06-05' },
      retentionFilter: { totalIntervals: 5 },
      filterTestAccounts: true,
    });
    expect(table(out.results as unknown as Cohort[]).slice(0, 2)).toEqual([
      [0, 0, 0, 0, 0],
      [2, 1, 0, 0],
    ]);
  });

  it('weeks start on the project week start day (Sunday) and hours work', async () => {
    const weeks = await retention({ period: 'Week', totalIntervals: 3 });
    expect(weeks.map((c) => [c.label, c.date])).toEqual([
      ['Week 0', '2025-05-18T00:00:00Z'],
      ['Week 1', '2025-05-25T00:00:00Z'],
      ['Week 2', '2025-06-01T00:00:00Z'],
    ]);
    expect(table(weeks)).toEqual([[1, 0, 1], [0, 0], [5]]);
    const hours = await ok(h, project, {
      kind: 'RetentionQuery',
      dateRange: { date_to: '2025-06-02T13:30:00Z' },
      retentionFilter: { period: 'Hour', totalIntervals: 12 },
    });
    const cohorts = hours.results as unknown as Cohort[];
    expect(cohorts[0]?.date).toBe('2025-06-02T02:00:00Z');
    expect(cohorts[0]?.values[0]?.count).toBe(1);
    expect(cohorts[10]).toMatchObject({
      label: 'Hour 10',
      date: '2025-06-02T12:00:00Z',
      values: [{ count: 2 }, { count: 0 }],
    });
  });

  it('a date_from starts the first cohort in its period; totalIntervals only bounds the follow-up', async () => {
    // PostHog's retention since its 2025 date range update: "Last 30 days" by week is the weeks
    // from the one holding the range's start, not totalIntervals (8) weeks back.
    const run = async (dateRange: Record<string, string>) =>
      (
        await ok(h, project, {
          kind: 'RetentionQuery',
          dateRange,
          retentionFilter: { period: 'Week', totalIntervals: 8 },
        })
      ).results as unknown as Cohort[];
    const fixed = await run({ date_from: '2025-05-20', date_to: '2025-06-05' });
    expect(fixed.map((c) => c.date)).toEqual([
      '2025-05-18T00:00:00Z',
      '2025-05-25T00:00:00Z',
      '2025-06-01T00:00:00Z',
    ]);
    expect(table(fixed)).toEqual([[1, 0, 1], [0, 0], [5]]);
    // Relative to now (1 July 2025, a Tuesday): 30 days back is Sunday 1 June.
    const relative = await run({ date_from: '-30d' });
    expect(relative.map((c) => c.date.slice(0, 10))).toEqual([
      '2025-06-01',
      '2025-06-08',
      '2025-06-15',
      '2025-06-22',
      '2025-06-29',
    ]);
    // Each cohort is followed for at most totalIntervals periods.
    const days = (
      await ok(h, project, {
        kind: 'RetentionQuery',
        dateRange: { date_from: '2025-05-01', date_to: '2025-06-05' },
        retentionFilter: { period: 'Day', totalIntervals: 3 },
      })
    ).results as unknown as Cohort[];
    expect(days).toHaveLength(36);
    expect(Math.max(...days.map((c) => c.values.length))).toBe(3);
  });

  it('cohorts are periods in the project timezone', async () => {
    const res = await h.request('POST', '/api/organizations/@current/projects/', {
      body: { name: 'New York', timezone: 'America/New_York' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { id, api_token } = res.json() as { id: number; api_token: string };
    await capture(
      h,
      api_token,
      id,
      DATASET.map((e) => ({ ...e, uuid: uuid() })),
    );
    const cohorts = await retention({}, id);
    expect(cohorts[0]?.date).toBe('2025-06-01T00:00:00-04:00');
    expect(table(cohorts)[0]).toEqual([2, 1, 0, 1, 0]);
  }, 60_000);

  it('rejects actions, unknown periods and a missing filter with 400', async () => {
    const bad = async (node: Record<string, unknown>) => {
      const res = await query(h, project, { kind: 'RetentionQuery', ...node });
      expect(res.statusCode).toBe(400);
      return res.json() as { attr: string | null; detail: string };
    };
    expect((await bad({})).attr).toBe('query__retentionFilter');
    expect((await bad({ retentionFilter: { period: 'Year' } })).attr).toBe('query__period');
    expect((await bad({ retentionFilter: { targetEntity: { id: 3, type: 'actions' } } })).detail).toBe(
      'Action 3 does not exist in this project.',
    );
    expect((await bad({ retentionFilter: { totalIntervals: 0 } })).attr).toBe('query__totalIntervals');
  });
});

describe('RetentionQuery printed SQL', () => {
  it('carries the team guard on every table it reads', async () => {
    await loadParser();
    for (const retentionType of ['retention_recurring', 'retention_first_time']) {
      const node = {
        kind: 'RetentionQuery',
        properties: [{ key: 'email', value: 'x', type: 'person' }],
        retentionFilter: { retentionType },
      };
      const spec = retentionSpec(node);
      const starts = cohortStarts(node, spec, { timezone: 'UTC', now: NOW, weekStartDay: 0 });
      const { sql } = compileSelect(retentionQuery(spec, starts), {
        teamId: 7,
        timezone: 'UTC',
        weekStartDay: 0,
        table: (t) => `db.${t}`,
      });
      const reads = [...sql.matchAll(/db\.(\w+) AS (\w+)/g)];
      expect(reads.map((r) => r[1]).sort()).toEqual(['events', 'person', 'person_distinct_id2']);
      for (const [, , alias] of reads) expect(sql).toContain(`equals(${alias}.team_id, 7)`);
    }
  });
});
