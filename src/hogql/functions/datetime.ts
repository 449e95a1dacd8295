import { as, call, each, type FunctionTable, table } from './define.js';
import type { CallContext } from './types.js';

const UNITS = ['Second', 'Minute', 'Hour', 'Day', 'Week', 'Month', 'Quarter', 'Year'] as const;
const ADD_UNITS = ['Years', 'Quarters', 'Months', 'Weeks', 'Days', 'Hours', 'Minutes', 'Seconds'] as const;

/**
 * Time-window functions accept DateTime but not DateTime64, which is what timestamps are; their
 * time argument is converted first (in UTC, as PostHog does). A lone tuple argument (the result
 * of `tumble(...)`) is passed through.
 */
const windowPrint = (name: string) => (ctx: CallContext) =>
  ctx.args.length === 1
    ? call(name, ctx.args)
    : call(name, [`toDateTime(${ctx.args[0]}, 'UTC')`, ...ctx.args.slice(1)]);

const timeWindow = (name: string) => ({ print: windowPrint(name) });

export const DATETIME: FunctionTable = table({
  timeZoneOf: [1, 1],
  timeZoneOffset: [1, 1],
  toYear: [1, 1],
  toQuarter: [1, 1],
  toMonth: [1, 1],
  toDayOfYear: [1, 1],
  toDayOfMonth: [1, 1],
  toDayOfWeek: [1, 3],
  toHour: [1, 1],
  toMinute: [1, 1],
  toSecond: [1, 1],
  toMillisecond: [1, 1],
  toUnixTimestamp: [1, 2],
  toUnixTimestamp64Milli: [1, 1],
  toUnixTimestamp64Micro: [1, 1],
  fromUnixTimestamp: [1, 1],
  fromUnixTimestamp64Milli: [1, 1],
  fromUnixTimestamp64Micro: [1, 1],
  toStartOfInterval: [2, 3],
  toStartOfYear: [1, 1],
  toStartOfISOYear: [1, 1],
  toStartOfQuarter: [1, 1],
  toStartOfMonth: [1, 1],
  toLastDayOfMonth: [1, 1],
  toMonday: [1, 1],
  toLastDayOfWeek: [1, 2],
  toStartOfDay: [1, 2],
  toStartOfHour: [1, 1],
  toStartOfMinute: [1, 1],
  toStartOfSecond: [1, 1],
  toStartOfFiveMinutes: [1, 1],
  toStartOfTenMinutes: [1, 1],
  toStartOfFifteenMinutes: [1, 1],
  toTime: [1, 1],
  toISOYear: [1, 1],
  toISOWeek: [1, 1],
  toWeek: [1, 3],
  toYearWeek: [1, 3],
  toRelativeDayNum: [1, 1],
  toRelativeHourNum: [1, 1],
  toRelativeWeekNum: [1, 1],
  toRelativeMonthNum: [1, 1],
  age: [3, 3],
  // the three-argument form needs a bare unit keyword, which HogQL cannot print
  dateAdd: [2, 2],
  dateSub: [2, 2],
  timeStampAdd: [2, 2],
  timeStampSub: [2, 2],
  nowInBlock: [0, 1],
  rowNumberInBlock: [0, 0],
  rowNumberInAllBlocks: [0, 0],
  timeSlot: [1, 1],
  timeSlots: [2, 3],
  toYYYYMM: [1, 1],
  toYYYYMMDD: [1, 1],
  toYYYYMMDDhhmmss: [1, 1],
  ...each(
    ADD_UNITS.map((u) => `add${u}`),
    [2, 2],
  ),
  ...each(
    ADD_UNITS.map((u) => `subtract${u}`),
    [2, 2],
  ),
  ...each(
    UNITS.map((u) => `toInterval${u}`),
    [1, 1],
  ),
  formatDateTime: [2, 3],
  dateName: [2, 2],
  monthName: [1, 1],
  toModifiedJulianDay: [1, 1, as('toModifiedJulianDayOrNull')],
  fromModifiedJulianDay: [1, 1, as('fromModifiedJulianDayOrNull')],
  tumble: [2, 2, timeWindow('tumble')],
  hop: [3, 3, timeWindow('hop')],
  tumbleStart: [1, 3, timeWindow('tumbleStart')],
  tumbleEnd: [1, 3, timeWindow('tumbleEnd')],
  hopStart: [1, 3, timeWindow('hopStart')],
  hopEnd: [1, 3, timeWindow('hopEnd')],
});
