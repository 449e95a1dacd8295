import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, ok, otherProject, query, type RawEvent, uuid } from '../helpers/query-lists.js';

/** SessionsQuery through POST /query, over sessions built from events sent through /batch/. */
const NOW = new Date('2025-06-15T12:00:00.000Z');

let h: Harness;
let project: number;
let other: Awaited<ReturnType<typeof otherProject>>;

const ev = (
  event: string,
  distinct_id: string,
  session: string,
  timestamp: string,
  url?: string,
): RawEvent => ({
  event,
  distinct_id,
  timestamp,
  uuid: uuid(),
  properties: { $session_id: session, ...(url ? { $current_url: url } : {}) },
});

const BULK = Array.from({ length: 12 }, (_, i) =>
  ev(
    '$pageview',
    'bulk',
    `bulk-${String(i).padStart(2, '0')}`,
    new Date(Date.parse('2025-06-15T06:00:00Z') + i * 60_000).toISOString(),
    'https://bulk.example/',
  ),
);

beforeAll(async () => {
  h = await startHarness({}, { now: () => NOW });
  project = h.boot.project_id;
  other = await otherProject(h);
  await capture(h, h.boot.project_api_key, project, [
    ev('$pageview', 'd1', 's1', '2025-06-15T10:00:00Z', 'https://a.example/1'),
    ev('$autocapture', 'd1', 's1', '2025-06-15T10:01:00Z'),
    ev('$pageview', 'd1', 's1', '2025-06-15T10:05:00Z', 'https://a.example/2'),
    ev('$pageview', 'd2', 's2', '2025-06-15T11:00:00Z', 'https://b.example/'),
    ev('$pageview', 'd1', 's3', '2025-06-13T08:00:00Z', 'https://a.example/old'),
    ev('$pageview', 'd3', 's4', '2025-06-15T12:00:30Z', 'https://a.example/ahead'),
    ...BULK,
  ]);
  await capture(
    h,
    other.token,
    other.projectId,
    [ev('$pageview', 'd1', 'secret-session', '2025-06-15T10:30:00Z', 'https://SECRET/')],
    other.key,
  );
});
afterAll(async () => h?.close());

const sessions = (node: Record<string, unknown>) => ok(h, project, { kind: 'SessionsQuery', ...node });
const notBulk = ["distinct_id != 'bulk'"];

describe('SessionsQuery', () => {
  it('returns * as a session object, windowed on the session start over the last 24 hours', async () => {
    const out = await sessions({ select: ['*'], where: notBulk });
    expect(out.columns).toEqual(['*']);
    const rows = out.results.map((r) => r[0] as Record<string, unknown>);
    expect(rows.map((r) => r.session_id)).toEqual(['s1', 's2']);
    expect(Object.keys(rows[0]!)).toEqual([
      'session_id',
      'distinct_id',
      '$start_timestamp',
      '$end_timestamp',
      '$session_duration',
      '$entry_current_url',
      '$end_current_url',
      '$pageview_count',
      '$autocapture_count',
      '$screen_count',
      '$is_bounce',
    ]);
    expect(rows[0]).toMatchObject({
      distinct_id: 'd1',
      $start_timestamp: '2025-06-15T10:00:00Z',
      $end_timestamp: '2025-06-15T10:05:00Z',
      $session_duration: 300,
      $entry_current_url: 'https://a.example/1',
      $end_current_url: 'https://a.example/2',
      $pageview_count: 2,
      $autocapture_count: 1,
    });
    expect(rows[0]?.$is_bounce).toBeFalsy();
    expect(rows[1]).toMatchObject({ session_id: 's2', $session_duration: 0, $pageview_count: 1 });
    expect(rows[1]?.$is_bounce).toBeTruthy();
  });

  it('orders by $start_timestamp DESC when selected, with plain types and pagination fields', async () => {
    const out = await sessions({
      select: ['session_id', '$start_timestamp', '$session_duration'],
      where: notBulk,
    });
    expect(out.results).toEqual([
      ['s2', '2025-06-15T11:00:00Z', 0],
      ['s1', '2025-06-15T10:00:00Z', 300],
    ]);
    expect(out.types[0]).toBe('String');
    expect(out.types[1]).toMatch(/^DateTime64\(\d, 'UTC'\)$/);
    expect(out).toMatchObject({ hasMore: false, limit: 100, offset: 0 });
  });

  it('filters with session property filters and HogQL where, moving aggregates to HAVING', async () => {
    const ids = async (node: Record<string, unknown>) =>
      (await sessions({ select: ['session_id'], where: notBulk, ...node })).results.map((r) => r[0]);
    expect(
      await ids({ properties: [{ type: 'session', key: '$session_duration', value: 60, operator: 'gt' }] }),
    ).toEqual(['s1']);
    expect(
      await ids({
        properties: [
          { type: 'session', key: '$entry_current_url', value: 'b.example', operator: 'icontains' },
        ],
      }),
    ).toEqual(['s2']);
    expect(await ids({ fixedProperties: [{ type: 'hogql', key: '$pageview_count = 1' }] })).toEqual(['s2']);
    const grouped = await sessions({ select: ['distinct_id', 'count()'], where: ['count() > 1'] });
    expect(grouped.results).toEqual([['bulk', 12]]);
    expect(grouped.hogql).toContain('HAVING count() > 1');
  });

  it('reads after/before (relative, ISO, "all") and personId', async () => {
    const ids = async (node: Record<string, unknown>) =>
      (
        await sessions({ select: ['session_id'], where: notBulk, orderBy: ['$start_timestamp ASC'], ...node })
      ).results.map((r) => r[0]);
    expect(await ids({ after: 'all' })).toEqual(['s3', 's1', 's2']);
    expect(await ids({ after: '-3d', before: '2025-06-15T10:30:00Z' })).toEqual(['s3', 's1']);
    expect(await ids({ before: '2025-06-16' })).toEqual(['s1', 's2', 's4']);
    const person = await ok(h, project, {
      kind: 'EventsQuery',
      select: ['person'],
      where: ["distinct_id = 'd1'"],
      limit: 1,
    });
    const personId = (person.results[0]![0] as { uuid: string }).uuid;
    expect(await ids({ personId, after: 'all' })).toEqual(['s3', 's1']);
  });

  it('pages with limit/offset', async () => {
    const page = (offset: number) =>
      sessions({
        select: ['session_id'],
        where: ["distinct_id = 'bulk'"],
        orderBy: ['session_id'],
        limit: 5,
        offset,
      });
    const pages = [await page(0), await page(5), await page(10)];
    expect(pages.map((p) => p.hasMore)).toEqual([true, true, false]);
    expect(pages.flatMap((p) => p.results.map((r) => r[0]))).toEqual(
      BULK.map((e) => e.properties?.$session_id),
    );
  });

  it("never shows another project's sessions", async () => {
    const mine = await sessions({ select: ['session_id', '$entry_current_url'], after: 'all' });
    expect(JSON.stringify(mine.results)).not.toContain('SECRET');
    const theirs = await ok(h, other.projectId, { kind: 'SessionsQuery', select: ['session_id'] }, other.key);
    expect(theirs.results).toEqual([['secret-session']]);
  });

  it('answers bad HogQL, event filters and malformed nodes with 400', async () => {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ select: ['session_id +'] }, 'invalid', /.+/],
      [{ select: ['no_such_thing'] }, 'invalid', /Unable to resolve field: no_such_thing/],
      [{ select: ['session_id'], where: ['bad_fn(1)'] }, 'invalid', /Unsupported function call 'bad_fn/],
      [{ select: ['session_id'], orderBy: ['session_id ASC ASC'] }, 'invalid', /Unexpected input/],
      [
        { select: ['session_id'], properties: [{ type: 'event', key: '$browser', value: 'x' }] },
        'invalid',
        /Event property filters/,
      ],
      [{ select: 'session_id' }, 'parse_error', /select/],
      [{}, 'parse_error', /Field required/],
    ];
    for (const [node, code, detail] of cases) {
      const res = await query(h, project, { kind: 'SessionsQuery', ...node });
      expect(res.statusCode, JSON.stringify(node)).toBe(400);
      expect(res.json()).toMatchObject({ type: 'validation_error', code });
      expect(res.json().detail).toMatch(detail);
    }
  });
});
