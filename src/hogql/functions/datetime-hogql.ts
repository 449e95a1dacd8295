import { as, call, constantString, type FunctionTable, kindOf, table, teamTz } from './define.js';
import type { CallContext } from './types.js';

/** `arg` when given, else the team timezone. */
const tzArg = (ctx: CallContext, i: number): string => ctx.args[i] ?? teamTz(ctx);

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const DATETIME64 = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})\.\d{1,6}$/;

/** A calendar-valid match of one of the patterns above (so no 2024-02-30 reaches a strict parser). */
function validMatch(pattern: RegExp, s: string): boolean {
  const m = pattern.exec(s);
  if (!m) return false;
  const [y, mo, d, h = 0, mi = 0, sec = 0] = m.slice(1, 7).map(Number) as number[];
  const t = new Date(Date.UTC(y!, mo! - 1, d!, h, mi, sec));
  return (
    t.getUTCFullYear() === y && t.getUTCMonth() === mo! - 1 && t.getUTCDate() === d && t.getUTCHours() === h
  );
}

/**
 * `toDateTime(x[, tz])` in the team timezone: exact constants take ClickHouse's strict (and fast,
 * index-friendly) conversion, dates and numbers convert directly, anything else parses leniently
 * to NULL on failure.
 */
function printToDateTime(ctx: CallContext): string {
  const arg = ctx.args[0]!;
  const tz = tzArg(ctx, 1);
  const s = constantString(ctx, 0);
  if (s !== undefined) {
    if (validMatch(DATETIME64, s)) return call('toDateTime64', [arg, '6', tz]);
    if (validMatch(DATETIME, s) || validMatch(DATE, s)) return call('toDateTime', [arg, tz]);
  } else if (['date', 'datetime', 'integer', 'float', 'decimal'].includes(kindOf(ctx, 0))) {
    return call('toDateTime', [arg, tz]);
  }
  return call('parseDateTime64BestEffortOrNull', [arg, '6', tz]);
}

/** Weeks start on the team's day unless a mode is given: 0 = Sunday start, 3 = Monday (ISO). */
const printToStartOfWeek = (ctx: CallContext): string =>
  call('toStartOfWeek', ctx.args.length > 1 ? ctx.args : [ctx.args[0]!, ctx.weekStartDay === 1 ? '3' : '0']);

const DATE_PARTS: Readonly<Record<string, string>> = {
  year: 'toYear',
  month: 'toMonth',
  day: 'toDayOfMonth',
  hour: 'toHour',
  minute: 'toMinute',
  second: 'toSecond',
  dow: 'toDayOfWeek',
  doy: 'toDayOfYear',
  quarter: 'toQuarter',
};

/** `date_part('unit', dt)`: one extractor for a constant unit, else a choice over all of them. */
function printDatePart(ctx: CallContext): string {
  const [part, dt] = ctx.args as [string, string];
  const unit = constantString(ctx, 0);
  if (unit !== undefined) {
    const fn = Object.hasOwn(DATE_PARTS, unit) ? DATE_PARTS[unit] : undefined;
    return fn ? call(fn, [dt]) : 'NULL';
  }
  const branches = Object.entries(DATE_PARTS).flatMap(([u, fn]) => [
    `equals(${part}, '${u}')`,
    call(fn, [dt]),
  ]);
  return call('multiIf', [...branches, 'NULL']);
}

const INTERVALS = ['Year', 'Month', 'Day', 'Hour', 'Minute', 'Second'] as const;
const printMakeInterval = (ctx: CallContext): string =>
  `(${INTERVALS.map((u, i) => call(`toInterval${u}`, [ctx.args[i]!])).join(' + ')})`;

const print = (clickhouse: string, fn: (ctx: CallContext) => string) => ({ clickhouse, print: fn });
/** Prints `name(...)` with the arguments `args` builds. */
const emit = (name: string, args: (ctx: CallContext) => string[]) =>
  print(name, (ctx) => call(name, args(ctx)));
const now = (ctx: CallContext) => call('now64', ['6', tzArg(ctx, 0)]);
const today = (ctx: CallContext) => call('toDate', [call('now', [teamTz(ctx)])]);
const a = (ctx: CallContext, i: number) => ctx.args[i]!;

/** HogQL's own and PostgreSQL-style date functions, printed in the team timezone. */
export const DATETIME_HOGQL: FunctionTable = table({
  now: [0, 1, { caseInsensitive: true, ...print('now64', now) }],
  current_timestamp: [0, 0, print('now64', now)],
  today: [0, 0, print('now', today)],
  current_date: [0, 0, print('now', today)],
  yesterday: [0, 0, print('now', (c) => call('subtractDays', [today(c), '1']))],
  toDateTime: [1, 2, print('toDateTime', printToDateTime)],
  toDateTime64: [1, 3, emit('toDateTime64', (c) => [a(c, 0), c.args[1] ?? '6', tzArg(c, 2)])],
  toDateTimeUS: [1, 2, emit('parseDateTime64BestEffortUSOrNull', (c) => [a(c, 0), '6', tzArg(c, 1)])],
  parseDateTime: [2, 3, emit('parseDateTimeOrNull', (c) => [a(c, 0), a(c, 1), tzArg(c, 2)])],
  parseDateTimeBestEffort: [
    1,
    2,
    emit('parseDateTime64BestEffortOrNull', (c) => [a(c, 0), '6', tzArg(c, 1)]),
  ],
  UUIDv7ToDateTime: [1, 2, { tzAware: true }],
  toTimeZone: [1, 2, { tzAware: true }],
  timezone: [2, 2, emit('toTimeZone', (c) => [a(c, 1), a(c, 0)])],
  toStartOfWeek: [1, 2, print('toStartOfWeek', printToStartOfWeek)],
  date_part: [2, 2, print('toYear', printDatePart)],
  date_trunc: [2, 3, as('dateTrunc')],
  dateTrunc: [2, 3],
  date_diff: [3, 3, as('dateDiff')],
  dateDiff: [3, 3],
  date_add: [2, 2],
  date_subtract: [2, 2, as('date_sub')],
  date_bin: [3, 3, emit('toStartOfInterval', (c) => [a(c, 1), a(c, 0), a(c, 2), teamTz(c)])],
  to_timestamp: [1, 2, emit('toDateTime64', (c) => [a(c, 0), '6', tzArg(c, 1)])],
  to_char: [2, 3, emit('formatDateTime', (c) => [a(c, 0), a(c, 1), tzArg(c, 2)])],
  make_date: [3, 3, as('makeDate')],
  make_timestamp: [6, 7, { ...as('makeDateTime'), tzAware: true }],
  // fields read in the given zone (else the team's), shown in the team's
  make_timestamptz: [
    6,
    7,
    emit('toTimeZone', (c) => [call('makeDateTime', [...c.args.slice(0, 6), tzArg(c, 6)]), teamTz(c)]),
  ],
  make_interval: [6, 6, print('toIntervalYear', printMakeInterval)],
});
