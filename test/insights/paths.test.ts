import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathsQuery } from '../../src/domain/insights/paths.js';
import { pathsSpec } from '../../src/domain/insights/paths-spec.js';
import { compileSelect } from '../../src/hogql/compile.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, ok, query, type RawEvent, uuid } from '../helpers/query-lists.js';

/**
 * PathsQuery through POST /query, one day (2025-06-02, UTC):
 *   u1 /home 10:00, /pricing 10:01, /signup 10:03, then after a 2 h gap /home 12:10, /docs 12:11
 *   u2 /home/ 10:00, /pricing 10:02, /pricing 10:03 (a repeat), /signup 10:04
 *   u3 /docs 10:00, /home 10:05, /pricing 10:06
 *   u4 custom `clicked` 10:00, /home 10:01
 */
const NOW = new Date('2025-07-01T12:00:00.000Z');
let h: Harness;
let project: number;

const view = (who: string, time: string, path: string): RawEvent => ({
  event: '$pageview',
  distinct_id: who,
  timestamp: `2025-06-02T${time}:00Z`,
  uuid: uuid(),
  properties: { $current_url: `https://example.com${path}` },
});

beforeAll(async () => {
  h = await startHarness({}, { now: () => NOW });
  project = h.boot.project_id;
  await capture(h, h.boot.project_api_key, project, [
    view('u1', '10:00', '/home'),
    view('u1', '10:01', '/pricing'),
    view('u1', '10:03', '/signup'),
    view('u1', '12:10', '/home'),
    view('u1', '12:11', '/docs'),
    view('u2', '10:00', '/home/'),
    view('u2', '10:02', '/pricing'),
    view('u2', '10:03', '/pricing'),
    view('u2', '10:04', '/signup'),
    view('u3', '10:00', '/docs'),
    view('u3', '10:05', '/home'),
    view('u3', '10:06', '/pricing'),
    { event: 'clicked', distinct_id: 'u4', timestamp: '2025-06-02T10:00:00Z', uuid: uuid() },
    view('u4', '10:01', '/home'),
  ]);
});
afterAll(async () => h?.close());

const U = 'https://example.com';
type Edge = { source: string; target: string; value: number; average_conversion_time: number };

async function paths(filter: Record<string, unknown> = {}) {
  const out = await ok(h, project, {
    kind: 'PathsQuery',
    dateRange: { date_from: '2025-06-01', date_to: '2025-06-30' },
    pathsFilter: { includeEventTypes: ['$pageview'], ...filter },
  });
  return out.results as unknown as Edge[];
}
const short = (edges: Edge[]) =>
  edges.map((e) => [e.source.replace(U, ''), e.target.replace(U, ''), e.value]);

describe('PathsQuery', () => {
  it('weights pageview edges by sessions, collapsing repeats and splitting at 30-minute gaps', async () => {
    const edges = await paths();
    expect(edges[0]).toEqual({
      source: `1_${U}/home`,
      target: `2_${U}/pricing`,
      value: 2,
      average_conversion_time: 90_000,
    });
    expect(short(edges)).toEqual([
      ['1_/home', '2_/pricing', 2],
      ['2_/pricing', '3_/signup', 2],
      ['1_/docs', '2_/home', 1],
      ['1_/home', '2_/docs', 1],
      ['2_/home', '3_/pricing', 1],
    ]);
    expect(edges[1]?.average_conversion_time).toBe(120_000);
  });

  it('starts paths at a start point', async () => {
    const edges = await paths({ startPoint: `${U}/home` });
    expect(short(edges)).toEqual([
      ['1_/home', '2_/pricing', 3],
      ['2_/pricing', '3_/signup', 2],
      ['1_/home', '2_/docs', 1],
    ]);
    expect(edges[0]?.average_conversion_time).toBe(80_000);
  });

  it('ends paths at an end point', async () => {
    expect(short(await paths({ endPoint: `${U}/pricing` }))).toEqual([
      ['1_/home', '2_/pricing', 2],
      ['1_/docs', '2_/home', 1],
      ['2_/home', '3_/pricing', 1],
    ]);
  });

  it('limits steps, edges and edge weights', async () => {
    expect(short(await paths({ stepLimit: 2 }))).toEqual([
      ['1_/home', '2_/pricing', 2],
      ['1_/docs', '2_/home', 1],
      ['1_/home', '2_/docs', 1],
    ]);
    expect(short(await paths({ edgeLimit: 1 }))).toEqual([['1_/home', '2_/pricing', 2]]);
    expect(short(await paths({ minEdgeWeight: 2 }))).toEqual([
      ['1_/home', '2_/pricing', 2],
      ['2_/pricing', '3_/signup', 2],
    ]);
  });

  it('includes custom events by name, and every event without includeEventTypes', async () => {
    const custom = await paths({ includeEventTypes: ['$pageview', 'custom_event'] });
    expect(short(custom)).toContainEqual(['1_clicked', '2_/home', 1]);
    expect(short(await paths({ includeEventTypes: [] }))).toContainEqual(['1_clicked', '2_/home', 1]);
    const hogql = await paths({
      includeEventTypes: ['hogql'],
      pathsHogQLExpression: "replaceOne(properties.$current_url, 'https://example.com', '')",
    });
    // The expression names every event (u4's click has no URL: ''), and u2's trailing slash stays.
    expect(short(hogql)).toEqual([
      ['2_/pricing', '3_/signup', 2],
      ['1_', '2_/home', 1],
      ['1_/docs', '2_/home', 1],
      ['1_/home', '2_/docs', 1],
      ['1_/home', '2_/pricing', 1],
      ['1_/home/', '2_/pricing', 1],
      ['2_/home', '3_/pricing', 1],
    ]);
  });

  it('applies path cleaning rules (regex → alias) before collapsing repeats', async () => {
    expect(
      short(await paths({ localPathCleaningFilters: [{ regex: '/(pricing|signup)$', alias: '/funnel' }] })),
    ).toEqual([
      ['1_/home', '2_/funnel', 2],
      ['1_/docs', '2_/home', 1],
      ['1_/home', '2_/docs', 1],
      ['2_/home', '3_/funnel', 1],
    ]);
  });

  it('filters the project test accounts out with filterTestAccounts', async () => {
    const res = await h.request('PATCH', `/api/projects/${project}/`, {
      body: { test_account_filters: [{ key: "distinct_id NOT IN ('u1', 'u2')", type: 'hogql' }] },
    });
    expect(res.statusCode, res.body).toBe(200);
    const out = await ok(h, project, {
      kind: 'PathsQuery',
      dateRange: { date_from: '2025-06-01', date_to: '2025-06-30' },
      pathsFilter: { includeEventTypes: ['$pageview'] },
      filterTestAccounts: true,
    });
    expect(short(out.results as unknown as Edge[])).toEqual([
      ['1_/docs', '2_/home', 1],
      ['2_/home', '3_/pricing', 1],
    ]);
  });

  it('rejects bad filters with 400', async () => {
    const bad = async (pathsFilter: Record<string, unknown>) => {
      const res = await query(h, project, { kind: 'PathsQuery', pathsFilter });
      expect(res.statusCode).toBe(400);
      return (res.json() as { attr: string }).attr;
    };
    expect(await bad({ stepLimit: 1 })).toBe('query__stepLimit');
    expect(await bad({ includeEventTypes: ['$autocapture'] })).toBe('query__includeEventTypes');
    expect(await bad({ includeEventTypes: ['hogql'] })).toBe('query__pathsHogQLExpression');
  });

  it('carries the team guard in its printed SQL', () => {
    const node = { kind: 'PathsQuery', properties: [{ key: 'email', value: 'x', type: 'person' }] };
    const ctx = { teamId: 7, timezone: 'UTC', weekStartDay: 0 as const, now: NOW } as never;
    const { sql } = compileSelect(pathsQuery(pathsSpec(node), node, ctx), {
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
