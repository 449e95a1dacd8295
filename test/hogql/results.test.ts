import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HogQLQueryError } from '../../src/hogql/errors.js';
import { type HogQLDb, openHogQLDb, P1, P2, P3 } from '../helpers/hogql-fixture.js';

// Results-level tests: HogQL compiled by Burrow and executed by a real chDB on a fixed dataset.
let db: HogQLDb;
beforeAll(async () => {
  db = await openHogQLDb('results');
}, 60_000);
afterAll(() => db?.close());

const rows = async (q: string, options = {}) => (await db.run(q, options)).rows;
const one = async (q: string, options = {}) => (await rows(q, options))[0];

describe('null-safe comparisons (PostHog truth table)', () => {
  const cases: Array<[string, number]> = [
    ['null = null', 1],
    ['null = 2', 0],
    ['2 = null', 0],
    ['null != 2', 1],
    ['null != null', 0],
    ['null < 2', 0],
    ['null <= 2', 0],
    ['null > 2', 0],
    ['null >= 2', 0],
    ['2 < null', 0],
    ['null like null', 1],
    ['null not like null', 0],
    ['null ilike null', 1],
    ['null not ilike null', 0],
    ["null like 'a'", 0],
    ["null not like 'a'", 1],
    ['null =~ null', 1],
    ['null !~ null', 0],
    ['null =~* null', 1],
    ['null !~* null', 0],
  ];
  it.each(cases)('%s → %i', async (expr, expected) => {
    expect(await one(`SELECT ${expr}`)).toEqual([expected]);
  });

  it('applies to nullable columns: a missing property equals null and differs from a value', async () => {
    const r = await rows(
      "SELECT properties.missing = null, properties.missing != 'x', properties.missing = 'x', properties.missing > 1 FROM events WHERE event = 'signup' AND distinct_id = 'd1'",
    );
    expect(r).toEqual([[1, 1, 0, 0]]);
  });
});

describe('BETWEEN', () => {
  const cases: Array<[string, number]> = [
    ['5 BETWEEN 1 AND 10', 1],
    ['5 BETWEEN 6 AND 10', 0],
    ['5 NOT BETWEEN 6 AND 10', 1],
    ['5 NOT BETWEEN 1 AND 10', 0],
    ['1 BETWEEN 1 AND 1', 1],
    ['null BETWEEN 1 AND 10', 0],
    ['5 BETWEEN null AND 10', 0],
    ['5 BETWEEN 1 AND null', 0],
    ['null NOT BETWEEN 1 AND 10', 0],
    ["'b' BETWEEN 'a' AND 'c'", 1],
    ['10 BETWEEN 10 AND 5', 0],
    ['-1 BETWEEN -2 AND 0', 1],
  ];
  it.each(cases)('%s → %i', async (expr, expected) => {
    expect(await one(`SELECT ${expr}`)).toEqual([expected]);
  });
});

describe('property access', () => {
  const where = "FROM events WHERE event = '$pageview' AND properties.plan = 'pro'";
  it('equivalent syntaxes give the same values', async () => {
    const variants = [
      'properties.obj.a.b',
      "properties['obj']['a']['b']",
      "properties.obj['a'].b",
      "properties['obj'].a.b",
    ];
    for (const v of variants) expect(await one(`SELECT ${v} ${where}`)).toEqual(['deep']);
    for (const v of ['properties.arr.1', 'properties.arr[1]', "properties['arr'][1]"]) {
      expect(await one(`SELECT ${v} ${where}`)).toEqual(['1']);
    }
    expect(await one(`SELECT properties.arr.3.x, properties.arr[3]['x'] ${where}`)).toEqual(['y', 'y']);
  });

  // A JSON "" reads as '' (the raw value is `""`, not empty), on the JSON and the materialized path alike.
  it("follows PostHog's null and empty rules", async () => {
    expect(
      await one(
        `SELECT properties.missing, properties.empty, properties.nul, properties.flag, properties.n, properties.obj.a ${where}`,
      ),
    ).toEqual([null, '', null, 'true', '10', '{"b":"deep"}']);
  });

  it('reads materialized columns with the same result as the JSON', async () => {
    const r = await db.run(`SELECT properties.$browser, properties['$browser'] ${where}`);
    expect(r.rows).toEqual([['Chrome', 'Chrome']]);
    expect(r.sql).toContain('mat_$browser');
  });

  it('refuses index 0', async () => {
    await expect(db.run(`SELECT properties.arr[0] ${where}`)).rejects.toThrow(/start from one/);
    await expect(db.run('SELECT [1,2][0]')).rejects.toThrow(/start from one/);
  });
});

describe('joins to persons, sessions and groups', () => {
  it('person properties through the lazy join follow the latest version', async () => {
    expect(
      await rows("SELECT DISTINCT person.properties.name FROM events WHERE distinct_id IN ('d1', 'd1b')"),
    ).toEqual([['One']]);
    expect(await rows('SELECT count(DISTINCT person_id) FROM events')).toEqual([[4]]);
  });

  it('explicit joins between events and persons', async () => {
    const r = await rows(
      "SELECT p.properties.email, count() FROM events e JOIN persons p ON e.person_id = p.id WHERE e.event = '$pageview' GROUP BY p.properties.email ORDER BY count() DESC, p.properties.email",
    );
    expect(r).toEqual([
      ['one@a.com', 2],
      [null, 2],
      ['two@b.com', 1],
    ]);
  });

  it('pdi and persons tables', async () => {
    expect(
      await rows('SELECT distinct_id, person.properties.email FROM person_distinct_ids ORDER BY distinct_id'),
    ).toEqual([
      ['d1', 'one@a.com'],
      ['d1b', 'one@a.com'],
      ['d2', 'two@b.com'],
      ['d3', null],
    ]);
    expect(await rows('SELECT id FROM persons ORDER BY id')).toEqual([[P1], [P2], [P3]]);
  });

  it('session fields', async () => {
    const r = await rows(
      "SELECT $session_id, any(session.$session_duration), any(session.$entry_current_url), any(session.$pageview_count) FROM events WHERE $session_id != '' GROUP BY $session_id ORDER BY $session_id",
    );
    expect(r).toEqual([
      ['s1', 600, 'https://a.com/1', 2],
      ['s2', 900, 'https://b.com/', 1],
    ]);
    expect(await rows('SELECT session_id, $is_bounce FROM sessions ORDER BY session_id')).toEqual([
      ['s1', 0],
      ['s2', 0],
    ]);
  });

  it('groups through group_0', async () => {
    expect(await rows("SELECT group_0.properties.industry FROM events WHERE event = 'group_event'")).toEqual([
      ['tools'],
    ]);
  });
});

describe('timezones', () => {
  it('converts DateTime fields to the project timezone across a DST change', async () => {
    const q = "SELECT toHour(timestamp) FROM events WHERE distinct_id = 'd3' ORDER BY timestamp";
    expect(await rows(q)).toEqual([[0], [1], [2]]);
    expect(await rows(q, { timezone: 'Europe/Berlin' })).toEqual([[1], [3], [4]]);
    expect(await rows(q, { timezone: 'America/New_York' })).toEqual([[20], [21], [22]]);
  });

  it('toDateTime of a string is read in the project timezone', async () => {
    const [v] = (await one("SELECT toUnixTimestamp(toDateTime('2025-01-01 00:00:00'))", {
      timezone: 'Asia/Tokyo',
    })) as number[];
    expect(v).toBe(Date.UTC(2024, 11, 31, 15) / 1000);
  });

  it('comparisons with date strings use the project timezone', async () => {
    const q =
      "SELECT count() FROM events WHERE timestamp >= '2025-01-17 00:00:00' AND timestamp < '2025-01-18'";
    expect(await one(q)).toEqual([0]);
    expect(await one(q, { timezone: 'Asia/Tokyo' })).toEqual([2]);
  });

  it('toStartOfWeek follows the week start', async () => {
    const q = "SELECT toStartOfWeek(toDate('2025-01-15'))";
    expect(await one(q, { weekStartDay: 0 })).toEqual(['2025-01-12']);
    expect(await one(q, { weekStartDay: 1 })).toEqual(['2025-01-13']);
  });
});

describe('constructs', () => {
  const cases: Array<[string, unknown[][]]> = [
    ['SELECT 1 ?? 2, null ?? 3', [[1, 3]]],
    ['SELECT 1 > 0 ? 10 : 20', [[10]]],
    ["SELECT 'abc' =~ 'b', 'ABC' =~* 'b', 'abc' !~ 'z', 'ABC' !~* 'a'", [[1, 1, 1, 0]]],
    ['SELECT [1, 2, 3,], (1, 2,).2', [[[1, 2, 3], 2]]],
    ['SELECT arrayMap(x -> x * 2, [1, 2]), arrayFilter((x, y) -> y, [1, 2], [0, 1])', [[[2, 4], [2]]]],
    ["SELECT CASE WHEN 1 = 2 THEN 'a' ELSE 'b' END", [['b']]],
    ['WITH 5 AS five SELECT five + 1', [[6]]],
    ['WITH t AS (SELECT number AS n FROM numbers(3)) SELECT sum(n) FROM t', [[3]]],
    ['SELECT number FROM numbers(5) ORDER BY number LIMIT 2 OFFSET 1', [[1], [2]]],
    ['SELECT 1 UNION ALL SELECT 2 ORDER BY 1', [[1], [2]]],
    ['SELECT number FROM numbers(3) INTERSECT SELECT number FROM numbers(1, 5) ORDER BY number', [[1], [2]]],
    ['SELECT * FROM (SELECT number FROM numbers(3) EXCEPT SELECT 1) ORDER BY number', [[0], [2]]],
    ['SELECT x FROM (SELECT [1, 2] AS arr) ARRAY JOIN arr AS x ORDER BY x', [[1], [2]]],
    [
      'SELECT number % 2 AS k, number FROM numbers(6) ORDER BY k, number LIMIT 1 BY k',
      [
        [0, 0],
        [1, 1],
      ],
    ],
    [
      'SELECT number, row_number() OVER (ORDER BY number DESC) FROM numbers(3) ORDER BY number',
      [
        [0, 3],
        [1, 2],
        [2, 1],
      ],
    ],
    [
      'SELECT number, sum(number) OVER w FROM numbers(3) WINDOW w AS (ORDER BY number) ORDER BY number',
      [
        [0, 0],
        [1, 1],
        [2, 3],
      ],
    ],
    ["SELECT toInt('12'), toFloat('1.5'), toInt('x')", [[12, 1.5, null]]],
    [
      'SELECT number FROM numbers(10) ORDER BY intDiv(number, 5) LIMIT 1 WITH TIES',
      [[0], [1], [2], [3], [4]],
    ],
    ["SELECT count() FROM events WHERE event IN ('signup', 'purchase')", [[3]]],
    ["SELECT count() FROM events WHERE event NOT IN ('signup', 'purchase')", [[7]]],
    ["SELECT event FROM events WHERE event IN (SELECT 'purchase')", [['purchase']]],
  ];
  it.each(cases)('%s', async (q, expected) => {
    expect(await rows(q)).toEqual(expected);
  });

  it('SELECT * on events expands to the visible columns', async () => {
    const r = await db.run("SELECT * FROM events WHERE event = 'purchase'");
    expect(r.columns).toEqual([
      'uuid',
      'event',
      'properties',
      'timestamp',
      'distinct_id',
      'elements_chain',
      'created_at',
      '$session_id',
      '$window_id',
      '$group_0',
      '$group_1',
      '$group_2',
      '$group_3',
      '$group_4',
    ]);
    expect(r.rows[0]?.[1]).toBe('purchase');
  });

  it('names columns by alias or as HogQL', async () => {
    const r = await db.run(
      'SELECT event, count() AS c, count(), properties.$browser, 1 + 2 FROM events GROUP BY event, properties.$browser',
    );
    expect(r.columns).toEqual(['event', 'c', 'count()', 'properties.$browser', 'plus(1, 2)']);
  });
});

describe('placeholders and limits', () => {
  it('substitutes values as constants, never as SQL', async () => {
    const r = await db.run('SELECT count() FROM events WHERE event = {e}', {
      values: { e: "signup' OR 1=1 --" },
    });
    expect(r.rows).toEqual([[0]]);
    expect(await rows('SELECT count() FROM events WHERE event = {e}', { values: { e: 'signup' } })).toEqual([
      [2],
    ]);
    expect(await rows('SELECT {list}', { values: { list: ['a', "b'c"] } })).toEqual([[['a', "b'c"]]]);
  });

  it('substitutes variables by code name', async () => {
    const variables = { v1: { variableId: 'v1', code_name: 'ev', value: 'purchase' } };
    expect(await rows('SELECT count() FROM events WHERE event = {variables.ev}', { variables })).toEqual([
      [1],
    ]);
    await expect(db.run('SELECT {variables.nope}', { variables })).rejects.toThrow(
      'Variable nope is missing from query',
    );
  });

  it('names an unresolved placeholder', async () => {
    await expect(db.run('SELECT {missing}')).rejects.toThrow(
      new HogQLQueryError('Unresolved placeholder: {missing}'),
    );
  });

  it('applies the default limit and caps every top-level select at 50 000', async () => {
    expect((await rows('SELECT number FROM numbers(1000)')).length).toBe(100);
    expect((await rows('SELECT number FROM numbers(100000) LIMIT 60000')).length).toBe(50_000);
    expect((await rows('SELECT number FROM numbers(200)', { defaultLimit: 101 })).length).toBe(101);
    expect(
      (await rows('SELECT number FROM numbers(3) UNION ALL SELECT number FROM numbers(200)')).length,
    ).toBe(103);
  });
});
