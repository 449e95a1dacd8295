import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { windowStart } from '../../src/domain/batch-exports/intervals.js';
import { resolveDate } from '../../src/domain/recordings/dates.js';
import { startOfInterval } from '../../src/domain/time/intervals.js';
import { parseDate } from '../../src/domain/time/relative-date.js';

/**
 * Recordings (domain/recordings/dates.ts) and batch export windows (domain/batch-exports/intervals.ts)
 * still compute dates on their own, beside the time module (domain/time/). These properties pin
 * down where they agree with it, and the known cases where they do not, so that merging them into
 * the time module can be done knowingly (it would change those answers).
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

const timeModule = (value: string, tz: string, now: Date) =>
  parseDate(value, { timezone: tz, now }).at.toMillis();
const recordings = (value: string, tz: string, now: Date) =>
  resolveDate(value, { tz, now }, false)?.getTime();

describe('batch export windows and the time module', () => {
  it('start hour, day and week windows where the time module starts those intervals', () => {
    fc.assert(
      fc.property(
        instant,
        zone,
        fc.constantFrom('hour', 'day', 'week') as fc.Arbitrary<'hour' | 'day' | 'week'>,
        (at, tz, interval) => {
          // Where a DST change skips local midnight (Sao Paulo until 2019), a day has no 00:00: the
          // two disagree on its start (pinned below), so the property leaves those days out.
          fc.pre(!(tz === 'America/Sao_Paulo' && interval !== 'hour' && at.getUTCFullYear() < 2020));
          expect(windowStart(at, interval, tz).getTime()).toBe(
            startOfInterval(at, interval, tz, 0).getTime(),
          );
        },
      ),
      runs,
    );
  });

  it('disagree on the start of a day whose midnight a DST change skips (known; merge knowingly)', () => {
    // 2017-10-15 in Sao Paulo starts at 01:00 local (00:00 did not exist).
    const at = new Date('2017-10-15T03:00:00.000Z');
    expect(windowStart(at, 'week', 'America/Sao_Paulo').getTime()).toBe(1508032800000);
    expect(startOfInterval(at, 'week', 'America/Sao_Paulo', 0).getTime()).toBe(1508036400000);
  });
});

describe('recording date filters and the time module', () => {
  it('agree on day, week and minute offsets, day snaps, and absolute dates and datetimes', () => {
    const value = fc.oneof(
      fc.integer({ min: 0, max: 400 }).map((n) => `-${n}d`),
      fc.integer({ min: 0, max: 52 }).map((n) => `-${n}w`),
      fc.integer({ min: 0, max: 600 }).map((n) => `-${n}M`),
      fc.constantFrom('dStart', '-1dStart', '-7dStart', '-1hStart'),
      fc
        .date({
          min: new Date('2016-01-01T00:00:00Z'),
          max: new Date('2034-01-01T00:00:00Z'),
          noInvalidDate: true,
        })
        .chain((d) =>
          fc.constantFrom(d.toISOString().slice(0, 10), d.toISOString().slice(0, 19), d.toISOString()),
        ),
    );
    fc.assert(
      fc.property(value, zone, instant, (v, tz, now) => {
        expect(recordings(v, tz, now), v).toBe(timeModule(v, tz, now));
      }),
      runs,
    );
  });

  it('agree on hour offsets in a zone without DST', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        fc.constantFrom('UTC', 'Asia/Kolkata'),
        instant,
        (n, tz, now) => {
          expect(recordings(`-${n}h`, tz, now)).toBe(timeModule(`-${n}h`, tz, now));
        },
      ),
      runs,
    );
  });

  // Known disagreements: each is a behaviour one of them has today.
  it.each([
    // Hours across a DST change: recordings move the wall clock, the time module elapsed time.
    [
      '-24h',
      'Europe/Berlin',
      '2021-10-31T10:10:48.400Z',
      '2021-10-30T09:10:48.400Z',
      '2021-10-30T10:10:48.400Z',
    ],
    // A month back from the 31st: recordings overflow into the next month, the time module clamps.
    ['-1m', 'UTC', '2021-10-31T10:10:48.400Z', '2021-10-01T10:10:48.400Z', '2021-09-30T10:10:48.400Z'],
    // Start of a month: recordings snap to midnight, the time module's parse keeps the time of day
    // (its date ranges truncate afterwards, in resolveDateRange).
    ['-1mStart', 'UTC', '2022-10-12T08:35:21.042Z', '2022-09-01T00:00:00.000Z', '2022-09-01T08:35:21.042Z'],
  ])('differ on %s in %s at %s', (value, tz, now, expectedRecordings, expectedTimeModule) => {
    const at = new Date(now);
    expect(new Date(recordings(value, tz, at) as number).toISOString()).toBe(expectedRecordings);
    expect(new Date(timeModule(value, tz, at)).toISOString()).toBe(expectedTimeModule);
  });
});
