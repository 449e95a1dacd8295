import type { Interval } from './types.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Nominal length, used for backoff, jitter and progress estimates. */
export function intervalMs(interval: Interval): number {
  switch (interval) {
    case 'every 5 minutes':
      return 5 * MINUTE;
    case 'every 15 minutes':
      return 15 * MINUTE;
    case 'hour':
      return HOUR;
    case 'day':
      return DAY;
    case 'week':
      return 7 * DAY;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Milliseconds to add to a UTC instant to get the wall-clock time in `tz` at that instant. */
function offsetAt(utc: number, tz: string): number {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  const p = Object.fromEntries(f.formatToParts(utc).map((x) => [x.type, Number(x.value)]));
  const wall = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return wall - Math.floor(utc / 1000) * 1000;
}

/** The UTC instant showing `wall` on clocks in `tz` (the later one when a DST change repeats it). */
function fromWall(wall: number, tz: string): number {
  let utc = wall - offsetAt(wall, tz);
  utc = wall - offsetAt(utc, tz);
  return utc;
}

/**
 * Start of the window holding `at`. Windows are aligned on the export's timezone: days start at
 * local midnight, weeks on Sunday at local midnight, hours and minutes on local clock boundaries.
 * `offsetSeconds` (day and week only) moves that start later: `offset_hour` hours into the day,
 * `offset_day` days into the week.
 */
export function windowStart(at: Date, interval: Interval, tz: string, offsetSeconds = 0): Date {
  const utc = at.getTime();
  const wall = utc + offsetAt(utc, tz);
  let floored: number;
  if (interval === 'day' || interval === 'week') {
    const offset = offsetSeconds * 1000;
    const shifted = wall - offset;
    floored = shifted - (((shifted % DAY) + DAY) % DAY);
    if (interval === 'week') floored -= new Date(floored).getUTCDay() * DAY;
    return new Date(fromWall(floored + offset, tz));
  }
  const step = intervalMs(interval);
  floored = wall - (((wall % step) + step) % step);
  return new Date(utc - (wall - floored));
}

/** PostHog's `interval_offset` from `offset_day` and `offset_hour` (null when neither applies). */
export function intervalOffset(offsetDay: number | null, offsetHour: number | null): number | null {
  if (offsetDay === null && offsetHour === null) return null;
  return (offsetDay ?? 0) * 86_400 + (offsetHour ?? 0) * 3600;
}

/** End of the window starting at `start` (a local day can be 23 or 25 hours long). */
export function windowEnd(start: Date, interval: Interval, tz: string): Date {
  if (interval !== 'day' && interval !== 'week') return new Date(start.getTime() + intervalMs(interval));
  const wall = start.getTime() + offsetAt(start.getTime(), tz);
  return new Date(fromWall(wall + (interval === 'day' ? DAY : 7 * DAY), tz));
}
