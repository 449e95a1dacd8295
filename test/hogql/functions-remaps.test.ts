import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { constant, type Expr, field } from '../../src/hogql/ast.js';
import { HogQLQueryError } from '../../src/hogql/errors.js';
import { type ArgKind, findFunction, printCall } from '../../src/hogql/functions/index.js';
import { type EventsStore, openEventsStore } from '../../src/store/events/store.js';

// chDB: one data directory per process, so one per file.
const dataDir = mkdtempSync(join(tmpdir(), 'burrow-hogql-remaps-'));
let store: EventsStore;
beforeAll(async () => {
  store = await openEventsStore({
    dataDir,
    database: 'hogql_remaps',
    clickhouseUrl: process.env.CLICKHOUSE_URL,
  });
});
afterAll(async () => {
  await store?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A constant argument, or an expression given as ClickHouse SQL with what the resolver knows of it. */
type Arg = string | number | boolean | null | { sql: string; kind?: ArgKind };
interface Options {
  timezone?: string;
  weekStartDay?: 0 | 1;
  params?: string[];
}

/** Prints a call the way the printer will: constants strings bound, other constants inline. */
function render(name: string, args: Arg[], o: Options = {}) {
  const def = findFunction(name);
  if (!def) throw new Error(`not allowlisted: ${name}`);
  const params: Record<string, string> = {};
  const bindString = (value: string) => {
    const key = `v${Object.keys(params).length}`;
    params[key] = value;
    return `{${key}:String}`;
  };
  const printed: string[] = [];
  const nodes: Expr[] = [];
  const argTypes: ArgKind[] = [];
  for (const a of args) {
    if (a !== null && typeof a === 'object') {
      printed.push(a.sql);
      nodes.push(field('expr'));
      argTypes.push(a.kind ?? 'unknown');
    } else {
      printed.push(a === null ? 'NULL' : typeof a === 'string' ? bindString(a) : String(a));
      nodes.push(constant(a));
      argTypes.push('unknown');
    }
  }
  const sql = printCall(def, {
    args: printed,
    nodes,
    params: o.params ?? [],
    timezone: o.timezone ?? 'UTC',
    weekStartDay: o.weekStartDay ?? 0,
    bindString,
    argTypes,
  });
  return { sql, params };
}

/** Runs `SELECT <wrap(call)>` and returns the value and its ClickHouse type. */
async function run(name: string, args: Arg[], o: Options & { wrap?: (sql: string) => string } = {}) {
  const { sql, params } = render(name, args, o);
  const expr = o.wrap ? o.wrap(sql) : sql;
  const [row] = await store.query<{ v: unknown; t: string }>(`SELECT ${expr} AS v, toTypeName(v) AS t`, {
    params,
  });
  return { ...row!, sql };
}
const value = async (name: string, args: Arg[], o?: Parameters<typeof run>[2]) =>
  (await run(name, args, o)).v;
const unix = (sql: string) => `toUnixTimestamp(${sql})`;
const dt = (s: string, tz = 'UTC'): Arg => ({ sql: `toDateTime('${s}', '${tz}')`, kind: 'datetime' });

describe('conversions', () => {
  it('toInt / toFloat / toUUID return NULL instead of failing', async () => {
    expect(await value('toInt', ['12'])).toBe(12);
    expect(await value('toInt', ['x'])).toBeNull();
    expect(await value('toInt', [{ sql: "'-7'" }])).toBe(-7);
    expect((await run('toInt', ['12'])).t).toBe('Nullable(Int64)');
    expect(await value('toFloat', ['1.5'])).toBe(1.5);
    expect(await value('toFloat', ['abc'])).toBeNull();
    const uuid = '0190b6a4-0000-7000-8000-000000000001';
    expect(await value('toUUID', [uuid])).toBe(uuid);
    expect(await value('toUUID', ['nope'])).toBeNull();
    expect(await value('toNullableString', [5])).toBe('5');
  });

  it('toDecimal takes a constant scale', async () => {
    const r = await run('toDecimal', ['3.14159', 2]);
    expect([Number(r.v), r.t]).toEqual([3.14, 'Nullable(Decimal(18, 2))']);
    expect(await value('toDecimal', ['x', 2])).toBeNull();
    expect(() => render('toDecimal', ['1', 99])).toThrow(HogQLQueryError);
    expect(() => render('toDecimal', ['1', { sql: 'number' }])).toThrow(/constant scale/);
  });

  it('the OrZero forms and toDate', async () => {
    expect(await value('toIntOrZero', ['x'])).toBe(0);
    expect(await value('toFloatOrZero', ['2.5'])).toBe(2.5);
    expect(await value('toDate', ['2024-02-03'])).toBe('2024-02-03');
    expect(await value('to_date', ['garbage'])).toBeNull();
    const fromDateTime = await run('toDate', [dt('2024-02-03 23:30:00')]);
    expect([fromDateTime.v, fromDateTime.sql]).toEqual([
      '2024-02-03',
      "toDate(toDateTime('2024-02-03 23:30:00', 'UTC'))",
    ]);
    expect(await value('toString', [5])).toBe('5');
    expect(await value('isEmpty', [''])).toBe(1);
  });
});

describe('toDateTime in the team timezone', () => {
  const tz = 'America/New_York';
  it('uses the strict conversion for exact constants', async () => {
    const r = await run('toDateTime', ['2024-01-01 00:00:00'], { timezone: tz, wrap: unix });
    expect(r.sql).toMatch(/^toDateTime\(\{v0:String\}, \{v1:String\}\)$/);
    expect(r.v).toBe(Date.UTC(2024, 0, 1, 5) / 1000);
    const micro = await run('toDateTime', ['2024-01-01 00:00:00.250000'], { timezone: tz });
    expect([micro.v, micro.t]).toEqual(['2024-01-01 00:00:00.250000', "DateTime64(6, 'America/New_York')"]);
    expect(await value('toDateTime', ['2024-06-01'], { timezone: tz, wrap: unix })).toBe(
      Date.UTC(2024, 5, 1, 4) / 1000,
    );
  });

  it('follows DST (03:30 on the spring-forward day is EDT)', async () => {
    expect(await value('toDateTime', ['2024-03-10 03:30:00'], { timezone: tz, wrap: unix })).toBe(
      Date.UTC(2024, 2, 10, 7, 30) / 1000,
    );
    expect(await value('toDateTime', ['2024-03-09 03:30:00'], { timezone: tz, wrap: unix })).toBe(
      Date.UTC(2024, 2, 9, 8, 30) / 1000,
    );
  });

  it('parses anything else leniently, NULL on failure', async () => {
    const r = await run('toDateTime', ['2024-01-01T10:00:00Z'], { timezone: tz, wrap: unix });
    expect(r.sql).toContain('parseDateTime64BestEffortOrNull');
    expect(r.v).toBe(Date.UTC(2024, 0, 1, 10) / 1000);
    expect(await value('toDateTime', ['garbage'], { timezone: tz })).toBeNull();
    expect((await run('toDateTime', ['2024-02-30 00:00:00'])).sql).toContain('OrNull');
    expect(
      await value('toDateTime', [{ sql: "'2024-01-01 00:00:00'", kind: 'string' }], {
        timezone: tz,
        wrap: unix,
      }),
    ).toBe(Date.UTC(2024, 0, 1, 5) / 1000);
  });

  it('converts dates, datetimes and numbers directly, and honours an explicit timezone', async () => {
    const fromDateTime = await run('toDateTime', [dt('2024-01-01 12:00:00')], { timezone: tz });
    expect([fromDateTime.v, fromDateTime.t]).toEqual(['2024-01-01 07:00:00', "DateTime('America/New_York')"]);
    expect(await value('toDateTime', [1700000000], { timezone: tz, wrap: unix })).toBe(1700000000);
    const tokyo = await run('toDateTime', ['2024-01-01 09:00:00', 'Asia/Tokyo'], {
      timezone: tz,
      wrap: unix,
    });
    expect(tokyo.v).toBe(Date.UTC(2024, 0, 1, 0) / 1000);
  });

  it("reads argument kinds from the resolver's types when argTypes is absent", () => {
    const ctx = (node: Expr) => ({
      args: ['x'],
      nodes: [node],
      params: [],
      timezone: 'UTC',
      weekStartDay: 0 as const,
      bindString: () => "'UTC'",
    });
    const toDateTime = findFunction('toDateTime')!;
    const column: Expr = {
      ...field('timestamp'),
      type: { kind: 'column', table: 'e', column: 'timestamp', data: 'datetime', nullable: false },
    };
    const property: Expr = {
      ...field('properties', 'x'),
      type: { kind: 'property', table: 'e', column: 'properties', chain: ['x'] },
    };
    expect(printCall(toDateTime, ctx(column))).toBe("toDateTime(x, 'UTC')");
    expect(printCall(toDateTime, ctx(property))).toBe("parseDateTime64BestEffortOrNull(x, 6, 'UTC')");
    expect(printCall(toDateTime, ctx({ node: 'Call', name: 'now', args: [] }))).toBe("toDateTime(x, 'UTC')");
    expect(printCall(findFunction('toDate')!, ctx(column))).toBe('toDate(x)');
  });

  it('the other parsing functions', async () => {
    expect(await value('toDateTime64', ['2024-01-01 00:00:00'], { timezone: tz, wrap: unix })).toBe(
      Date.UTC(2024, 0, 1, 5) / 1000,
    );
    expect(await value('toDateTimeUS', ['01/02/2024'], { wrap: (s) => `toDate(${s})` })).toBe('2024-01-02');
    expect(await value('parseDateTime', ['2024-01-02', '%Y-%m-%d'], { timezone: tz, wrap: unix })).toBe(
      Date.UTC(2024, 0, 2, 5) / 1000,
    );
    expect(await value('parseDateTime', ['bad', '%Y-%m-%d'])).toBeNull();
    expect(
      await value('parseDateTimeBestEffort', ['2024-01-02 03:04:05'], { timezone: tz, wrap: unix }),
    ).toBe(Date.UTC(2024, 0, 2, 8, 4, 5) / 1000);
    expect(await value('to_timestamp', [1700000000.5])).toBe('2023-11-14 22:13:20.500000');
    const uuid = await run('UUIDv7ToDateTime', [{ sql: "toUUID('018f4c4e-1b00-7000-8000-000000000000')" }], {
      timezone: tz,
    });
    expect(uuid.t).toBe("DateTime64(3, 'America/New_York')");
  });
});

describe('now, today and time zones', () => {
  it('now() is a microsecond timestamp in the team timezone', async () => {
    const r = await run('now', [], { timezone: 'Asia/Tokyo' });
    expect(r.t).toBe("DateTime64(6, 'Asia/Tokyo')");
    const seconds = await value('NOW', [], { timezone: 'Asia/Tokyo', wrap: unix });
    expect(Math.abs((seconds as number) - Date.now() / 1000)).toBeLessThan(60);
    expect((await run('now', ['Europe/Paris'])).t).toBe("DateTime64(6, 'Europe/Paris')");
    expect((await run('current_timestamp', [], { timezone: 'Asia/Tokyo' })).t).toBe(
      "DateTime64(6, 'Asia/Tokyo')",
    );
  });

  it('today() is the date in the team timezone', async () => {
    const dateIn = (timeZone: string) => new Intl.DateTimeFormat('en-CA', { timeZone }).format(new Date());
    for (const timezone of ['Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
      const before = dateIn(timezone);
      const today = await value('today', [], { timezone });
      expect([before, dateIn(timezone)]).toContain(today);
      expect(await value('current_date', [], { timezone })).toBe(today);
      const yesterday = await value('yesterday', [], { timezone });
      expect(Date.parse(today as string) - Date.parse(yesterday as string)).toBe(86_400_000);
    }
  });

  it('toTimeZone and timezone()', async () => {
    expect((await run('toTimeZone', [dt('2024-01-01 00:00:00')], { timezone: 'Asia/Tokyo' })).v).toBe(
      '2024-01-01 09:00:00',
    );
    expect((await run('toTimeZone', [dt('2024-01-01 00:00:00'), 'Europe/London'])).t).toBe(
      "DateTime('Europe/London')",
    );
    expect((await run('timezone', ['Asia/Tokyo', dt('2024-01-01 00:00:00')])).v).toBe('2024-01-01 09:00:00');
  });
});

describe('date arithmetic and truncation', () => {
  const wed = dt('2024-01-03 15:00:00'); // a Wednesday
  it('toStartOfWeek follows the team week start', async () => {
    expect(await value('toStartOfWeek', [wed], { weekStartDay: 0 })).toBe('2023-12-31');
    expect(await value('toStartOfWeek', [wed], { weekStartDay: 1 })).toBe('2024-01-01');
    expect(await value('toStartOfWeek', [wed, 1], { weekStartDay: 0 })).toBe('2024-01-01');
  });

  it('dateDiff, date_trunc, date_add, date_subtract, date_part, date_bin', async () => {
    expect(await value('date_diff', ['day', dt('2024-01-01 00:00:00'), wed])).toBe(2);
    expect(await value('dateDiff', ['hour', dt('2024-01-01 00:00:00'), wed])).toBe(63);
    expect(await value('date_trunc', ['month', wed])).toBe('2024-01-01');
    expect(await value('dateTrunc', ['hour', wed])).toBe('2024-01-03 15:00:00');
    expect(await value('date_add', [wed, { sql: 'toIntervalDay(1)' }])).toBe('2024-01-04 15:00:00');
    expect(await value('date_subtract', [wed, { sql: 'toIntervalHour(1)' }])).toBe('2024-01-03 14:00:00');
    expect(await value('date_part', ['year', wed])).toBe(2024);
    expect(await value('date_part', ['hour', wed])).toBe(15);
    expect(await value('date_part', ['fortnight', wed])).toBeNull();
    expect(await value('date_part', [{ sql: "'doy'" }, wed])).toBe(3);
    const bin = await run('date_bin', [{ sql: 'toIntervalHour(6)' }, wed, dt('2024-01-01 01:00:00')]);
    expect(bin.v).toBe('2024-01-03 13:00:00');
  });

  it('PostgreSQL-style constructors', async () => {
    expect(await value('make_date', [2024, 2, 3])).toBe('2024-02-03');
    expect(await value('make_timestamp', [2024, 1, 2, 3, 4, 5], { timezone: 'Asia/Tokyo', wrap: unix })).toBe(
      Date.UTC(2024, 0, 1, 18, 4, 5) / 1000,
    );
    const tz = await run('make_timestamptz', [2024, 1, 2, 3, 4, 5, 'UTC'], { timezone: 'Asia/Tokyo' });
    expect([tz.v, tz.t]).toEqual(['2024-01-02 12:04:05', "DateTime('Asia/Tokyo')"]);
    const plusInterval = (s: string) => `toDate('2024-01-31') + ${s}`;
    expect(await value('make_interval', [1, 1, 1, 0, 0, 0], { wrap: plusInterval })).toBe(
      '2025-03-01 00:00:00',
    );
    expect(await value('to_char', [wed, '%Y/%m'])).toBe('2024/01');
  });

  it('time-window functions accept DateTime64 timestamps', async () => {
    const ts: Arg = { sql: "toDateTime64('2024-01-03 15:10:00', 6, 'UTC')", kind: 'datetime' };
    expect(await value('tumbleStart', [ts, { sql: 'toIntervalHour(1)' }])).toBe('2024-01-03 15:00:00');
    expect(await value('tumble', [ts, { sql: 'toIntervalDay(1)' }], { wrap: (s) => `tumbleEnd(${s})` })).toBe(
      '2024-01-04 00:00:00',
    );
  });
});

describe('strings', () => {
  it('concat reads NULL as empty and stringifies', async () => {
    const args: Arg[] = [
      'a',
      null,
      1,
      { sql: 'CAST(NULL AS Nullable(String))' },
      { sql: "toDate('2024-01-02')" },
    ];
    expect(await value('concat', args)).toBe('a12024-01-02');
    expect(await value('CONCAT', ['x', true])).toBe('xtrue');
  });

  it('trim with and without characters', async () => {
    expect(await value('trim', ['  a  '])).toBe('a');
    expect(await value('trim', ['xxhixx', 'x'])).toBe('hi');
    expect(await value('btrim', ['xxhixx', 'x'])).toBe('hi');
    expect(await value('ltrim', ['xxhixx', 'x'])).toBe('hixx');
    expect(await value('trimRight', ['xxhixx', 'x'])).toBe('xxhi');
    expect(await value('trimLeft', ['  a  '])).toBe('a  ');
  });

  it('split_part, left, right, md5', async () => {
    expect(await value('split_part', ['a,b,c', ',', 2])).toBe('b');
    expect(await value('split_part', ['a,b,c', ',', 5])).toBe('');
    expect(await value('left', ['héllo', 2])).toBe('hé');
    expect(await value('right', ['héllo', 3])).toBe('llo');
    expect(await value('md5', ['a'])).toBe('0CC175B9C0F1B6A831C399E269772661');
  });
});

describe('arrays and aggregations', () => {
  it('arrayReduce only takes an allowlisted aggregation by constant name', async () => {
    expect(await value('arrayReduce', ['sum', { sql: '[1, 2, 3]' }])).toBe(6);
    expect(await value('arrayReduce', ['uniqIf', { sql: '[1, 2, 2]' }, { sql: '[1, 1, 0]' }])).toBe(2);
    expect(() => render('arrayReduce', ['sleep', { sql: '[1]' }])).toThrow(
      /unsupported aggregate function 'sleep'/,
    );
    expect(() => render('arrayReduce', ['initializeAggregation', { sql: '[1]' }])).toThrow(HogQLQueryError);
    expect(() => render('arrayReduce', ['quantile', { sql: '[1]' }])).toThrow(HogQLQueryError);
    expect(() => render('arrayReduce', [{ sql: "'sum'" }, { sql: '[1]' }])).toThrow(/constant string/);
  });

  it('higher-order functions take lambdas', async () => {
    expect(await value('arrayMap', [{ sql: 'x -> x * 2' }, { sql: '[1, 2]' }])).toEqual([2, 4]);
    expect(await value('arrayFilter', [{ sql: 'x -> x > 1' }, { sql: '[1, 2, 3]' }])).toEqual([2, 3]);
  });

  const over = async (name: string, args: Arg[], params?: string[]) => {
    const { sql, params: bound } = render(name, args, { params: params ?? [] });
    const [row] = await store.query<{ v: unknown }>(`SELECT ${sql} AS v FROM numbers(5)`, { params: bound });
    return row!.v;
  };

  it('remapped and combined aggregations run', async () => {
    const n: Arg = { sql: 'number' };
    expect(await over('array_agg', [n])).toEqual([0, 1, 2, 3, 4]);
    expect(await over('json_agg', [n])).toBe('[0,1,2,3,4]');
    expect(await over('string_agg', [{ sql: 'toString(number)' }, '-'])).toBe('0-1-2-3-4');
    expect(await over('every', [{ sql: 'number < 9' }])).toBe(true);
    expect(await over('avgArray', [{ sql: '[number]' }])).toBe(2);
    expect(await over('medianArray', [{ sql: 'if(number > 9, [number], [])' }])).toBeNull();
    expect(await over('countIf', [{ sql: 'number > 2' }])).toBe(2);
    expect(await over('sumArrayIf', [{ sql: '[number, 1]' }, { sql: 'number < 2' }])).toBe(3);
    expect(await over('argMaxIf', [n, n, { sql: 'number < 3' }])).toBe(2);
    expect(await over('quantileIf', [n, { sql: 'number > 0' }], ['0.5'])).toBe(2.5);
    expect(await over('topK', [{ sql: 'number % 2' }], ['1'])).toEqual([0]);
    const merge = render('uniqMerge', [{ sql: 's' }]).sql;
    const [merged] = await store.query<{ v: number }>(
      `SELECT ${merge} AS v FROM (SELECT uniqState(number % 3) AS s FROM numbers(9) GROUP BY number % 2)`,
    );
    expect(merged!.v).toBe(3);
    expect(await over('avgOrNullIf', [n, { sql: 'number > 10' }])).toBeNull();
    expect(await over('COUNT', [])).toBe(5);
  });

  it('lag and lead see NULL past the ends of the frame', async () => {
    const frame = 'OVER (ORDER BY number ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)';
    const rows = async (name: string) => {
      const { sql } = render(name, [{ sql: 'number' }]);
      return (await store.query<{ v: number | null }>(`SELECT ${sql} ${frame} AS v FROM numbers(3)`)).map(
        (r) => r.v,
      );
    };
    expect(await rows('lag')).toEqual([null, 0, 1]);
    expect(await rows('lead')).toEqual([1, 2, null]);
    expect(render('lag', [{ sql: 'x' }, 2]).sql).toBe('lagInFrame(toNullable(x), 2)');
  });
});
