import { describe, expect, it } from 'vitest';
import { resolveDateRange, useStartOfInterval } from '../../src/domain/time/date-range.js';
import { DateRangeError } from '../../src/domain/time/errors.js';
import {
  addIntervals,
  clickhouseWeekMode,
  formatInZone,
  intervalStarts,
  startOfInterval,
} from '../../src/domain/time/intervals.js';
import { parseDate } from '../../src/domain/time/relative-date.js';

const NY = 'America/New_York';
// Tuesday 2024-03-12 11:30:45 in New York (EDT, UTC-4); DST began Sunday 2024-03-10 at 02:00.
const now = new Date('2024-03-12T15:30:45.000Z');
const iso = (d: Date | null) => d?.toISOString() ?? null;
const from = (
  date_from: string,
  timezone = NY,
  interval: 'minute' | 'hour' | 'day' | 'week' = 'day',
  at = now,
) => iso(resolveDateRange({ date_from }, { timezone, now: at, interval }).dateFrom);
const to = (
  date_to: string,
  timezone = NY,
  interval: 'minute' | 'hour' | 'day' = 'day',
  explicitDate = false,
) => iso(resolveDateRange({ date_to, explicitDate }, { timezone, now, interval }).dateTo);

describe('date_from', () => {
  it.each([
    ['-7d', 'UTC', '2024-03-05T00:00:00.000Z'],
    ['-7d', NY, '2024-03-05T05:00:00.000Z'], // a week ago was EST: midnight is 05:00Z, not 04:00Z
    ['-24h', NY, '2024-03-11T15:00:00.000Z'], // hour offsets truncate to the hour
    ['-1mStart', NY, '2024-02-01T05:00:00.000Z'],
    ['mStart', NY, '2024-03-01T05:00:00.000Z'],
    ['yStart', NY, '2024-01-01T05:00:00.000Z'],
    ['dStart', NY, '2024-03-12T04:00:00.000Z'],
    ['-1dStart', NY, '2024-03-11T04:00:00.000Z'],
    ['-1w', NY, '2024-03-05T05:00:00.000Z'],
    ['-1q', 'UTC', '2023-12-12T00:00:00.000Z'], // 13 weeks
    ['-30M', 'UTC', '2024-03-12T00:00:00.000Z'], // minutes, truncated to the day outside minute intervals
    ['2024-03-01', NY, '2024-03-01T05:00:00.000Z'],
    ['2024-3-1', NY, '2024-03-01T05:00:00.000Z'],
    ['2024-03-01T10:00:00', NY, '2024-03-01T15:00:00.000Z'], // absolute datetimes keep their time
    ['2024-03-01 10:00:00', NY, '2024-03-01T15:00:00.000Z'],
    ['2024-03-01T10:00:00+02:00', NY, '2024-03-01T08:00:00.000Z'],
    ['2024-03-01T10:00:00.123456Z', NY, '2024-03-01T10:00:00.123Z'],
    ['2024-03-10T02:30:00', NY, '2024-03-10T07:30:00.000Z'], // inside the DST gap: moved forward
    ['dStart', 'Asia/Kolkata', '2024-03-11T18:30:00.000Z'],
  ])('%s in %s → %s', (input, timezone, expected) => {
    expect(from(input, timezone)).toBe(expected);
  });

  it('minute intervals do not truncate relative dates', () => {
    expect(from('-30M', 'UTC', 'minute')).toBe('2024-03-12T15:00:45.000Z');
    expect(from('-24h', NY, 'minute')).toBe('2024-03-11T15:30:45.000Z');
  });

  it('hours and days move the wall clock across a DST change, as PostHog (Python) does', () => {
    const sunday = new Date('2024-03-10T16:00:00.000Z'); // 12:00 EDT, the day clocks went forward
    // 12:00 EST the day before: 23 hours ago, not 24 (PostHog's relativedelta keeps the wall clock).
    expect(from('-24h', NY, 'minute', sunday)).toBe('2024-03-09T17:00:00.000Z');
    expect(from('-1d', NY, 'minute', sunday)).toBe('2024-03-09T17:00:00.000Z'); // 12:00 EST
    expect(from('dStart', NY, 'day', sunday)).toBe('2024-03-10T05:00:00.000Z');
  });

  it('defaults to 7 days before the start of today; all has no lower bound unless told', () => {
    expect(iso(resolveDateRange(null, { timezone: NY, now }).dateFrom)).toBe('2024-03-05T05:00:00.000Z');
    const all = resolveDateRange({ date_from: 'all' }, { timezone: NY, now });
    expect(all.dateFrom).toBeNull();
    expect(all.isAll).toBe(true);
    expect(all.dateFromText).toBeNull();
    const earliest = new Date('2023-01-01T00:00:00Z');
    expect(resolveDateRange({ date_from: 'all' }, { timezone: NY, now, earliest }).dateFrom).toEqual(
      earliest,
    );
  });
});

describe('date_to', () => {
  it.each([
    ['-1mEnd', '2024-03-01T04:59:59.999Z'], // last day of February (leap year), end of day
    ['-1wEnd', '2024-03-06T04:59:59.999Z'], // PostHog does not snap weeks: a week ago, end of that day
    ['-1dEnd', '2024-03-12T03:59:59.999Z'],
    ['dEnd', '2024-03-13T03:59:59.999Z'],
    ['2024-03-01', '2024-03-02T04:59:59.999Z'],
    ['2024-03-10', '2024-03-11T03:59:59.999Z'], // the 23-hour day
  ])('%s → %s', (input, expected) => {
    expect(to(input)).toBe(expected);
  });

  it('defaults to the end of today', () => {
    expect(iso(resolveDateRange({}, { timezone: NY, now }).dateTo)).toBe('2024-03-13T03:59:59.999Z');
  });

  it('hour and minute intervals round relative ends to the hour/minute, absolute ones not at all', () => {
    expect(to('-1h', NY, 'hour')).toBe('2024-03-12T14:59:59.999Z');
    expect(to('-1h', NY, 'minute')).toBe('2024-03-12T14:30:59.999Z');
    expect(to('2024-03-01T10:20:00', NY, 'hour')).toBe('2024-03-01T15:20:00.000Z');
    expect(iso(resolveDateRange({}, { timezone: NY, now, interval: 'hour' }).dateTo)).toBe(
      '2024-03-12T15:59:59.999Z',
    );
  });

  it('explicitDate keeps the given end', () => {
    expect(to('2024-03-01T10:20:00', NY, 'day', true)).toBe('2024-03-01T15:20:00.000Z');
  });

  it('exposes the bounds as wall-clock text in the project timezone', () => {
    const range = resolveDateRange({ date_from: '-7d' }, { timezone: NY, now });
    expect(range.dateFromText).toBe('2024-03-05 00:00:00');
    expect(range.dateToText).toBe('2024-03-12 23:59:59');
  });
});

describe('invalid input', () => {
  it.each(['yesterday', '-7x', '7 days', '2024-13-01', '2024-02-30', '-1wStartx', 'D'])(
    '%j is a 400',
    (input) => {
      const error = (() => {
        try {
          resolveDateRange({ date_from: input }, { timezone: NY, now });
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(DateRangeError);
      expect((error as DateRangeError).status).toBe(400);
      expect((error as DateRangeError).attr).toBe('date_from');
    },
  );

  it('an unknown timezone is a 400', () => {
    expect(() => parseDate('-7d', { timezone: 'Mars/Olympus', now })).toThrow(DateRangeError);
  });
});

describe('use_start_of_interval', () => {
  const check = (date_from: string | undefined, interval: 'hour' | 'day' | 'week', explicitDate = false) => {
    const range = { date_from, explicitDate };
    return useStartOfInterval(range, resolveDateRange(range, { timezone: 'UTC', now, interval }));
  };
  it('follows PostHog', () => {
    expect(check(undefined, 'day')).toBe(true);
    expect(check('-7d', 'day')).toBe(true);
    expect(check('-24h', 'day')).toBe(false);
    expect(check('-7d', 'hour')).toBe(false);
    expect(check('-7d', 'week')).toBe(true);
    expect(check('2024-01-01', 'hour')).toBe(true);
    expect(check('-7d', 'day', true)).toBe(false);
  });
});

describe('interval rounding', () => {
  it('weeks start on Sunday by default, Monday when asked', () => {
    expect(iso(startOfInterval(now, 'week', NY))).toBe('2024-03-10T05:00:00.000Z'); // Sunday 00:00 EST
    expect(iso(startOfInterval(now, 'week', NY, 1))).toBe('2024-03-11T04:00:00.000Z'); // Monday 00:00 EDT
    expect(clickhouseWeekMode(0)).toBe(0);
    expect(clickhouseWeekMode(1)).toBe(3);
  });

  it('day, hour, minute and month starts are in the project timezone', () => {
    expect(iso(startOfInterval(now, 'day', NY))).toBe('2024-03-12T04:00:00.000Z');
    expect(iso(startOfInterval(now, 'hour', 'Asia/Kolkata'))).toBe('2024-03-12T15:30:00.000Z');
    expect(iso(startOfInterval(now, 'minute', NY))).toBe('2024-03-12T15:30:00.000Z');
    expect(iso(startOfInterval(now, 'month', NY))).toBe('2024-03-01T05:00:00.000Z');
  });

  it('daily buckets follow the calendar across DST (a 23-hour day)', () => {
    const starts = intervalStarts(
      new Date('2024-03-09T12:00:00Z'),
      new Date('2024-03-11T12:00:00Z'),
      'day',
      NY,
    );
    expect(starts.map(iso)).toEqual([
      '2024-03-09T05:00:00.000Z',
      '2024-03-10T05:00:00.000Z',
      '2024-03-11T04:00:00.000Z',
    ]);
  });

  it('hourly buckets show the repeated hour when clocks go back', () => {
    const starts = intervalStarts(
      new Date('2024-11-03T04:30:00Z'),
      new Date('2024-11-03T07:00:00Z'),
      'hour',
      NY,
    );
    expect(starts.map((d) => formatInZone(d, NY))).toEqual([
      '2024-11-03 00:00:00',
      '2024-11-03 01:00:00',
      '2024-11-03 01:00:00',
      '2024-11-03 02:00:00',
    ]);
    expect(new Set(starts.map(iso)).size).toBe(4);
  });

  it('monthly buckets and adding intervals', () => {
    const starts = intervalStarts(
      new Date('2024-01-15T12:00:00Z'),
      new Date('2024-03-15T12:00:00Z'),
      'month',
      'UTC',
    );
    expect(starts.map(iso)).toEqual([
      '2024-01-01T00:00:00.000Z',
      '2024-02-01T00:00:00.000Z',
      '2024-03-01T00:00:00.000Z',
    ]);
    expect(iso(addIntervals(new Date('2024-01-31T00:00:00Z'), 'month', 1, 'UTC'))).toBe(
      '2024-02-29T00:00:00.000Z',
    );
    expect(iso(addIntervals(new Date('2024-03-09T05:00:00Z'), 'day', 1, NY))).toBe(
      '2024-03-10T05:00:00.000Z',
    );
    expect(iso(addIntervals(new Date('2024-03-10T05:00:00Z'), 'day', 1, NY))).toBe(
      '2024-03-11T04:00:00.000Z',
    );
  });

  it('refuses absurd bucket counts instead of building them', () => {
    expect(() =>
      intervalStarts(new Date('2000-01-01T00:00:00Z'), new Date('2024-01-01T00:00:00Z'), 'minute', 'UTC'),
    ).toThrow(DateRangeError);
  });
});
