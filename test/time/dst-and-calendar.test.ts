import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { resolveDateRange } from '../../src/domain/time/date-range.js';
import { startOfInterval } from '../../src/domain/time/intervals.js';
import { parseDate } from '../../src/domain/time/relative-date.js';
import { type WindowSpec, windowEnd, windowStart } from '../../src/domain/time/windows.js';

/**
 * Insights, recordings and batch export windows all compute dates with the time module
 * (domain/time/). Where they once disagreed, these tests state the answer chosen, from PostHog's
 * behaviour: relative dates move the wall clock like Python's relativedelta on a zone-aware
 * datetime (hours too), months clamp, `mStart` keeps the time of day until a date range truncates
 * it, and a day whose midnight a DST change skips starts at its first moment.
 */
const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Asia/Kolkata',
  'Australia/Lord_Howe',
  'America/Sao_Paulo',
];
const zone = fc.constantFrom(...ZONES);
const instant = fc.date({
  min: new Date('2015-01-01T00:00:00Z'),
  max: new Date('2035-01-01T00:00:00Z'),
  noInvalidDate: true,
});
const runs = { numRuns: 300 };

const parse = (value: string, tz: string, now: Date) =>
  parseDate(value, { timezone: tz, now }).at.toJSDate().toISOString();

describe('relative dates (PostHog relative_date_parse)', () => {
  it('count hours on the wall clock: -24h is the same time yesterday, 25 hours ago when clocks went back', () => {
    // Berlin went from CEST to CET at 03:00 on 2021-10-31.
    const now = new Date('2021-10-31T10:10:48.400Z'); // 11:10:48 CET
    expect(parse('-24h', 'Europe/Berlin', now)).toBe('2021-10-30T09:10:48.400Z'); // 11:10:48 CEST
    expect(parse('-1d', 'Europe/Berlin', now)).toBe('2021-10-30T09:10:48.400Z');
  });

  it('-N×24h is -Nd in every zone, and hours are elapsed time where clocks never change', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), zone, instant, (n, tz, now) => {
        expect(parse(`-${24 * n}h`, tz, now)).toBe(parse(`-${n}d`, tz, now));
      }),
      runs,
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        fc.constantFrom('UTC', 'Asia/Kolkata'),
        instant,
        (n, tz, now) => {
          expect(parse(`-${n}h`, tz, now)).toBe(new Date(now.getTime() - n * 3_600_000).toISOString());
        },
      ),
      runs,
    );
  });

  it('clamp a month back from the 31st to the last day of the shorter month', () => {
    const now = new Date('2021-10-31T10:10:48.400Z');
    expect(parse('-1m', 'UTC', now)).toBe('2021-09-30T10:10:48.400Z');
    expect(parse('-8m', 'UTC', now)).toBe('2021-02-28T10:10:48.400Z');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), zone, instant, (n, tz, now) => {
        const from = DateTime.fromJSDate(now, { zone: tz });
        const moved = DateTime.fromISO(parse(`-${n}m`, tz, now), { zone: tz });
        const target = from.startOf('month').minus({ months: n });
        expect(moved.toFormat('yyyy-MM')).toBe(target.toFormat('yyyy-MM'));
        expect(moved.day).toBe(Math.min(from.day, target.daysInMonth!));
      }),
      runs,
    );
  });

  it('-1mStart sets the day and keeps the time of day; a date range truncates it to midnight', () => {
    const now = new Date('2022-10-12T08:35:21.042Z');
    expect(parse('-1mStart', 'UTC', now)).toBe('2022-09-01T08:35:21.042Z');
    const range = resolveDateRange({ date_from: '-1mStart' }, { timezone: 'UTC', now });
    expect(range.dateFrom?.toISOString()).toBe('2022-09-01T00:00:00.000Z');
  });

  it('read a wall time shown twice as the first of the two, and one never shown after the gap', () => {
    // 01:30 on 2024-11-03 happened twice in New York (EDT, then EST).
    expect(parse('-1d', 'America/New_York', new Date('2024-11-04T06:30:00Z'))).toBe(
      '2024-11-03T05:30:00.000Z',
    );
    expect(parse('2024-11-03T01:30:00', 'America/New_York', new Date())).toBe('2024-11-03T05:30:00.000Z');
    // 02:30 on 2024-03-10 never happened: read with the offset before the change (EST), 03:30 EDT.
    expect(parse('-1d', 'America/New_York', new Date('2024-03-11T06:30:00Z'))).toBe(
      '2024-03-10T07:30:00.000Z',
    );
  });
});

describe('export windows', () => {
  const spec = fc.constantFrom<WindowSpec>(
    { unit: 'minute', count: 5 },
    { unit: 'minute', count: 15 },
    { unit: 'hour', count: 1 },
    { unit: 'day', count: 1 },
    { unit: 'week', count: 1 },
  );
  const offsetFor = (s: WindowSpec) =>
    s.unit === 'day'
      ? fc.integer({ min: 0, max: 23 }).map((h) => h * 3600)
      : s.unit === 'week'
        ? fc
            .tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 23 }))
            .map(([d, h]) => d * 86_400 + h * 3600)
        : fc.constant(0);

  it('start day and week windows where the time module starts those intervals, in every zone', () => {
    fc.assert(
      fc.property(
        instant,
        zone,
        fc.constantFrom('day', 'week') as fc.Arbitrary<'day' | 'week'>,
        (at, tz, unit) => {
          expect(windowStart(at, { unit, count: 1 }, tz).getTime()).toBe(
            startOfInterval(at, unit, tz, 0).getTime(),
          );
        },
      ),
      runs,
    );
  });

  it('tile time: each window holds its instants and ends where the next one starts', () => {
    fc.assert(
      fc.property(
        instant,
        zone,
        spec.chain((s) => fc.tuple(fc.constant(s), offsetFor(s))),
        (at, tz, [s, offset]) => {
          const start = windowStart(at, s, tz, offset);
          const end = windowEnd(start, s, tz, offset);
          expect(start.getTime()).toBeLessThanOrEqual(at.getTime());
          expect(end.getTime()).toBeGreaterThan(at.getTime());
          expect(windowStart(end, s, tz, offset).getTime()).toBe(end.getTime());
        },
      ),
      runs,
    );
  });

  it("start hour and minute windows at the last instant the wall clock showed o'clock (or :05, :15 ...)", () => {
    // Oracle: walk back minute by minute, reading the wall clock with Luxon, to the first minute that
    // shows a whole step or that the clocks jumped forward onto or over one.
    const wall = (t: number, tz: string) => {
      const local = DateTime.fromMillis(t, { zone: tz });
      return t + local.offset * 60_000;
    };
    const oracle = (at: Date, tz: string, stepMinutes: number) => {
      const step = stepMinutes * 60_000;
      const starts = (t: number) =>
        DateTime.fromMillis(t, { zone: tz }).minute % stepMinutes === 0 ||
        (wall(t, tz) - wall(t - 60_000, tz) > 60_000 &&
          Math.floor(wall(t, tz) / step) > Math.floor(wall(t - 60_000, tz) / step));
      let t = Math.floor(at.getTime() / 60_000) * 60_000;
      while (!starts(t)) t -= 60_000;
      return t;
    };
    fc.assert(
      fc.property(instant, zone, fc.constantFrom(5, 15, 60), (at, tz, minutes) => {
        const s: WindowSpec =
          minutes === 60 ? { unit: 'hour', count: 1 } : { unit: 'minute', count: minutes };
        expect(windowStart(at, s, tz).getTime()).toBe(oracle(at, tz, minutes));
      }),
      runs,
    );
  });

  it("tile Lord Howe's half-hour clock changes with 90- and 30-minute hour windows (fast-check found one)", () => {
    // 2015-04-05 02:00 LHDT (+11) became 01:30 LHST (+10:30) at 15:00Z; 02:00 LHST is 15:30Z.
    const tz = 'Australia/Lord_Howe';
    const hour = { unit: 'hour', count: 1 } as const;
    expect(windowStart(new Date('2015-04-04T14:00:00Z'), hour, tz).toISOString()).toBe(
      '2015-04-04T14:00:00.000Z',
    );
    expect(windowStart(new Date('2015-04-04T15:10:00Z'), hour, tz).toISOString()).toBe(
      '2015-04-04T14:00:00.000Z',
    );
    expect(windowEnd(new Date('2015-04-04T14:00:00Z'), hour, tz).toISOString()).toBe(
      '2015-04-04T15:30:00.000Z',
    );
    // Spring forward (02:00 LHST → 02:30 LHDT at 15:30Z on 2015-10-03): 02:00 is skipped, so the
    // window starts at the jump, as a day whose midnight is skipped does, and runs 30 minutes.
    expect(windowEnd(new Date('2015-10-03T14:30:00Z'), hour, tz).toISOString()).toBe(
      '2015-10-03T15:30:00.000Z',
    );
    expect(windowStart(new Date('2015-10-03T15:45:00Z'), hour, tz).toISOString()).toBe(
      '2015-10-03T15:30:00.000Z',
    );
    expect(windowEnd(new Date('2015-10-03T15:30:00Z'), hour, tz).toISOString()).toBe(
      '2015-10-03T16:00:00.000Z',
    );
  });

  it('start a day whose midnight a DST change skips at its first moment', () => {
    // 2017-10-15 in Sao Paulo began at 01:00 -02 (00:00 -03 never came).
    const tz = 'America/Sao_Paulo';
    const at = new Date('2017-10-15T03:00:00.000Z');
    const day = { unit: 'day', count: 1 } as const;
    expect(windowStart(at, day, tz).toISOString()).toBe('2017-10-15T03:00:00.000Z');
    expect(windowStart(at, { unit: 'week', count: 1 }, tz).toISOString()).toBe('2017-10-15T03:00:00.000Z');
    // The day before ends there (24 hours after its 00:00 -03), the day itself 23 hours later.
    expect(windowEnd(new Date('2017-10-14T03:00:00.000Z'), day, tz).toISOString()).toBe(
      '2017-10-15T03:00:00.000Z',
    );
    expect(windowEnd(at, day, tz).toISOString()).toBe('2017-10-16T02:00:00.000Z');
  });

  it('run a backfill window that starts off the schedule for one calendar day', () => {
    const start = new Date('2024-03-30T10:37:00.000Z'); // 11:37 CET; clocks go forward that night
    expect(windowEnd(start, { unit: 'day', count: 1 }, 'Europe/Paris').toISOString()).toBe(
      '2024-03-31T09:37:00.000Z',
    );
  });
});
