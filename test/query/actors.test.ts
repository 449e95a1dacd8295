import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, ok, otherProject, query, type RawEvent, uuid } from '../helpers/query-lists.js';

/** ActorsQuery (over persons and over a HogQL source) through POST /query on real stores. */
const NOW = new Date('2025-06-15T12:00:00.000Z');

let h: Harness;
let project: number;
let other: Awaited<ReturnType<typeof otherProject>>;

const ev = (
  event: string,
  distinct_id: string,
  timestamp: string,
  properties: Record<string, unknown> = {},
): RawEvent => ({
  event,
  distinct_id,
  timestamp,
  uuid: uuid(),
  properties,
});

const BATCH = Array.from({ length: 12 }, (_, i) =>
  ev('$pageview', `p${String(i).padStart(2, '0')}`, '2025-06-14T08:00:00Z', { $set: { batch: 'yes', n: i } }),
);

beforeAll(async () => {
  h = await startHarness({}, { now: () => NOW });
  project = h.boot.project_id;
  other = await otherProject(h);
  await capture(h, h.boot.project_api_key, project, [
    ev('$pageview', 'anon-u1', '2025-06-15T09:00:00Z'),
    ev('$identify', 'u1', '2025-06-15T09:30:00Z', { $anon_distinct_id: 'anon-u1' }),
    ev('signup', 'u1', '2025-06-15T10:00:00Z', { $set: { email: 'ann@example.com', plan: 'pro' } }),
    ev('$pageview', 'u2', '2025-06-15T11:00:00Z', { $set: { name: 'Bob', plan: 'free' } }),
    ev('$pageview', 'u3', '2025-06-15T11:30:00Z'),
  ]);
  await capture(h, h.boot.project_api_key, project, BATCH);
  await capture(
    h,
    other.token,
    other.projectId,
    [ev('signup', 'u1', '2025-06-15T10:00:00Z', { $set: { email: 'secret@other.example', plan: 'pro' } })],
    other.key,
  );
});
afterAll(async () => h?.close());

const actors = (node: Record<string, unknown>) => ok(h, project, { kind: 'ActorsQuery', ...node });
const notBatch = [{ type: 'hogql', key: 'isNull(properties.batch)' }];

describe('ActorsQuery over persons', () => {
  it('defaults to the person, id and person.$delete columns, with each person and its distinct ids', async () => {
    const out = await actors({ fixedProperties: notBatch });
    expect(out.columns).toEqual(['person', 'id', 'person.$delete']);
    expect(out.types).toEqual(['UUID', 'UUID', 'UInt8']);
    expect(out).toMatchObject({ hasMore: false, limit: 100, offset: 0, missing_actors_count: 0 });
    // The engine orders UUIDs by their bytes, not their text.
    expect(out.hogql).toContain('ORDER BY id ASC');
    const persons = out.results.map((r) => r[0] as Record<string, unknown>);
    expect(persons).toHaveLength(3);
    const ann = persons.find((p) => (p.properties as { email?: string }).email === 'ann@example.com')!;
    expect(Object.keys(ann).sort()).toEqual([
      'created_at',
      'distinct_ids',
      'id',
      'is_identified',
      'properties',
    ]);
    expect((ann.distinct_ids as string[]).sort()).toEqual(['anon-u1', 'u1']);
    expect(ann).toMatchObject({
      is_identified: true,
      properties: { plan: 'pro' },
      created_at: '2025-06-15T09:00:00Z',
    });
    expect(out.results.every((r) => r[0] && (r[0] as { id: string }).id === r[1] && r[2] === 1)).toBe(true);
  });

  it('selects HogQL columns over persons, with person property filters', async () => {
    const out = await actors({
      select: ['properties.email', 'properties.plan', 'created_at'],
      properties: [{ type: 'person', key: 'plan', value: ['pro', 'free'], operator: 'exact' }],
      fixedProperties: [{ type: 'person', key: 'name', operator: 'is_not_set' }],
    });
    expect(out.results).toEqual([['ann@example.com', 'pro', '2025-06-15T09:00:00Z']]);
    expect(out.columns).toEqual(['properties.email', 'properties.plan', 'created_at']);
  });

  it('searches email, name, id and distinct ids case-insensitively', async () => {
    const emails = async (search: string) =>
      (
        await actors({
          select: ['coalesce(properties.email, properties.name)'],
          search,
          fixedProperties: notBatch,
        })
      ).results.map((r) => r[0]);
    expect(await emails('ANN@')).toEqual(['ann@example.com']);
    expect(await emails('bob')).toEqual(['Bob']);
    expect(await emails('anon-U1')).toEqual(['ann@example.com']);
    expect(await emails('secret')).toEqual([]);
    const all = await actors({ select: ['id', 'properties.name'], fixedProperties: notBatch });
    const bob = all.results.find((r) => r[1] === 'Bob')![0] as string;
    // The id's random tail: a UUIDv7 begins with its creation time, which persons made in the same
    // millisecond share.
    expect(await emails(bob.slice(-12).toUpperCase())).toEqual(['Bob']);
  });

  it('shows person_display_name and orders by it, by `person` (email), and by created_at DESC by default', async () => {
    const out = await actors({
      select: ['person_display_name -- Person', 'id'],
      fixedProperties: notBatch,
      orderBy: ['person_display_name -- Person DESC'],
    });
    const names = out.results.map((r) => (r[0] as { display_name: string }).display_name);
    expect(names).toContain('ann@example.com');
    expect(names).toContain('Bob');
    expect(names).toEqual([...names].sort().reverse());
    // Without display properties the name falls back to the person id.
    const nameless = out.results.find(
      (r) => !['ann@example.com', 'Bob'].includes((r[0] as { display_name: string }).display_name),
    );
    expect(nameless?.[0]).toEqual({ display_name: nameless?.[1], id: nameless?.[1] });

    const byEmail = await actors({
      select: ['properties.email'],
      fixedProperties: notBatch,
      orderBy: ['person DESC'],
    });
    expect(byEmail.hogql).toContain('ORDER BY properties.email DESC');

    const byCreated = await actors({ select: ['properties.name', 'created_at'], fixedProperties: notBatch });
    expect(byCreated.results.map((r) => r[1])).toEqual([
      '2025-06-15T11:30:00Z',
      '2025-06-15T11:00:00Z',
      '2025-06-15T09:00:00Z',
    ]);
  });

  it('groups when a column aggregates', async () => {
    const out = await actors({ select: ['properties.batch', 'count()'] });
    expect(out.results).toEqual([
      ['yes', 12],
      [null, 3],
    ]);
  });

  it('pages with limit/offset and hasMore', async () => {
    const page = (offset: number) =>
      actors({
        select: ['properties.n'],
        properties: [{ type: 'person', key: 'batch', value: 'yes' }],
        orderBy: ['toInt(properties.n) ASC'],
        limit: 5,
        offset,
      });
    const pages = [await page(0), await page(5), await page(10)];
    expect(pages.map((p) => p.hasMore)).toEqual([true, true, false]);
    expect(pages.flatMap((p) => p.results.map((r) => Number(r[0])))).toEqual(
      Array.from({ length: 12 }, (_, i) => i),
    );
    expect(pages[2]).toMatchObject({ limit: 5, offset: 10 });
  });
});

describe('ActorsQuery over a HogQL source', () => {
  it('reads actors from the source alone when it has every column', async () => {
    const out = await actors({
      source: {
        kind: 'HogQLQuery',
        query: 'SELECT DISTINCT person_id FROM events WHERE event = {e}',
        values: { e: 'signup' },
      },
    });
    expect(out.results).toHaveLength(1);
    expect(out.results[0]?.[0]).toMatchObject({ properties: { email: 'ann@example.com' } });
    expect(out.hogql).toContain('AS source');
    expect(out.hogql).not.toContain('JOIN persons');
  });

  it('keeps source columns and joins persons for person columns, filters and search', async () => {
    const source = {
      kind: 'HogQLQuery',
      query:
        "SELECT person_id, count() AS views FROM events WHERE event = '$pageview' AND {filters} GROUP BY person_id",
      filters: { dateRange: { date_from: '-12h' } },
    };
    const counts = await actors({ select: ['person', 'views'], source, orderBy: ['views DESC'] });
    // anon-u1 (now ann), u2 and u3 viewed in the last day; the batch persons two days ago do not count.
    expect(counts.results).toHaveLength(3);
    expect(counts.results.every((r) => r[1] === 1)).toBe(true);

    const joined = await actors({
      select: ['properties.email', 'person_display_name'],
      source,
      search: 'ann',
    });
    expect(joined.hogql).toContain('INNER JOIN persons');
    expect(joined.results).toEqual([
      ['ann@example.com', expect.objectContaining({ display_name: 'ann@example.com' })],
    ]);

    const filtered = await actors({
      select: ['properties.name'],
      source,
      properties: [{ type: 'person', key: 'plan', value: 'free' }],
    });
    expect(filtered.results).toEqual([['Bob']]);
  });

  it('counts actors the source names but no person has', async () => {
    const out = await actors({
      source: {
        kind: 'HogQLQuery',
        query: "SELECT toUUID('00000000-0000-4000-8000-0000000000aa') AS person_id",
      },
    });
    expect(out.results).toEqual([
      [{ id: '00000000-0000-4000-8000-0000000000aa' }, '00000000-0000-4000-8000-0000000000aa', 1],
    ]);
    expect(out.missing_actors_count).toBe(1);
  });
});

describe('ActorsQuery isolation and errors', () => {
  it("never shows another project's persons", async () => {
    const mine = await actors({ select: ['properties.email'], search: 'example' });
    expect(mine.results).toEqual([['ann@example.com']]);
    const theirs = await ok(
      h,
      other.projectId,
      { kind: 'ActorsQuery', select: ['properties.email'] },
      other.key,
    );
    expect(theirs.results).toEqual([['secret@other.example']]);
    const viaSource = await actors({
      select: ['properties.email'],
      source: { kind: 'HogQLQuery', query: "SELECT DISTINCT person_id FROM events WHERE distinct_id = 'u1'" },
    });
    expect(viaSource.results).toEqual([['ann@example.com']]);
  });

  it('answers bad HogQL and unsupported sources with 400', async () => {
    const hogql: Array<[Record<string, unknown>, RegExp]> = [
      [{ select: ['properties.email +'] }, /.+/],
      [{ select: ['no_such_column'] }, /Unable to resolve field: no_such_column/],
      [{ select: ['id'], orderBy: ['nope(id)'] }, /Unsupported function call 'nope/],
      [{ select: ['id'], orderBy: ['id ASC ASC'] }, /Unexpected input/],
      [
        { source: { kind: 'HogQLQuery', query: 'SELECT event FROM events' } },
        /Source query must have an id column/,
      ],
      [{ source: { kind: 'HogQLQuery', query: 'SELECT person_id FROM nowhere' } }, /nowhere/],
    ];
    for (const [node, detail] of hogql) {
      const res = await query(h, project, { kind: 'ActorsQuery', ...node });
      expect(res.statusCode, JSON.stringify(node)).toBe(400);
      expect(res.json()).toMatchObject({ type: 'validation_error', code: 'invalid' });
      expect(res.json().detail).toMatch(detail);
    }
    const shapes: Array<[Record<string, unknown>, string]> = [
      [{ select: 'id' }, 'query__select'],
      [{ search: 3 }, 'query__search'],
      [{ limit: 'x' }, 'query__limit'],
      [
        { source: { kind: 'InsightActorsQuery', source: { kind: 'TrendsQuery', series: [] } } },
        'query__source',
      ],
      [{ source: { kind: 'HogQLQuery' } }, 'query__query'],
    ];
    for (const [node, attr] of shapes) {
      const res = await query(h, project, { kind: 'ActorsQuery', ...node });
      expect(res.statusCode, JSON.stringify(node)).toBe(400);
      expect(res.json()).toMatchObject({ type: 'validation_error', attr });
    }
    const eventFilter = await query(h, project, {
      kind: 'ActorsQuery',
      properties: [{ type: 'event', key: '$browser', value: 'x' }],
    });
    expect(eventFilter.statusCode).toBe(400);
  });
});
