import { DateTime } from 'luxon';
import { startOfInterval } from './intervals.js';
import { zoneOf } from './relative-date.js';

/**
 * A schedule of back-to-back windows: every `count` minutes, every hour, or every day or week. Day
 * and week windows begin `offsetSeconds` after local midnight (weeks: after Sunday's midnight), as
 * PostHog's batch export schedules fire at `offset_hour` on `offset_day` in the export's timezone.
 */
export type WindowUnit = 'minute' | 'hour' | 'day' | 'week';

export interface WindowSpec {
  unit: WindowUnit;
  /** Minutes per window for `minute`; 1 otherwise. */
  count: number;
}

const MINUTE_MS = 60_000;

/** The local day `date` (any instant of it) at `offsetSeconds` past midnight, days included. */
function boundaryOn(date: DateTime, offsetSeconds: number): DateTime {
  const days = Math.floor(offsetSeconds / 86_400);
  const rest = offsetSeconds - days * 86_400;
  const day = date.startOf('day').plus({ days });
  // Wall-clock fields, not elapsed time: 02:00 stays 02:00 on a 23- or 25-hour day. A time the
  // clocks skip moves forward with them, and a midnight they skip starts the day at its first moment.
  if (rest === 0) return day;
  return day.set({ hour: Math.floor(rest / 3600), minute: Math.floor((rest % 3600) / 60) });
}

/** Sunday of the week holding `date`, at its start. */
function sundayOf(date: DateTime): DateTime {
  const day = date.startOf('day');
  return day.minus({ days: day.weekday % 7 }); // Luxon weekdays run Monday 1 … Sunday 7
}

/**
 * Start of the window holding `at`. Minute and hour windows follow the local clock (in zones off
 * UTC by a part of an hour, hour windows start at local o'clock); day and week windows start at
 * local midnight plus the offset, on the calendar, across DST changes.
 */
export function windowStart(at: Date, spec: WindowSpec, timezone: string, offsetSeconds = 0): Date {
  const zone = zoneOf(timezone);
  if (spec.unit === 'hour') return startOfInterval(at, 'hour', timezone);
  if (spec.unit === 'minute') {
    const step = spec.count * MINUTE_MS;
    const wall = at.getTime() + zone.offset(at.getTime()) * MINUTE_MS;
    return new Date(at.getTime() - (((wall % step) + step) % step));
  }
  const local = DateTime.fromJSDate(at, { zone });
  const period = spec.unit === 'week' ? { weeks: 1 } : { days: 1 };
  const base = spec.unit === 'week' ? sundayOf(local) : local.startOf('day');
  let start = boundaryOn(base, offsetSeconds);
  if (start > local) start = boundaryOn(base.minus(period), offsetSeconds);
  return start.toJSDate();
}

/**
 * End of the window starting at `start`: the next window's start. A day or week window is a
 * calendar day or week, so 23 or 25 hours long across DST changes; one that begins off the
 * schedule (a backfill's own start) runs one calendar day or week from there.
 */
export function windowEnd(start: Date, spec: WindowSpec, timezone: string, offsetSeconds = 0): Date {
  if (spec.unit === 'minute') return new Date(start.getTime() + spec.count * MINUTE_MS);
  if (spec.unit === 'hour') return new Date(start.getTime() + 60 * MINUTE_MS);
  const zone = zoneOf(timezone);
  const local = DateTime.fromJSDate(start, { zone });
  const period = spec.unit === 'week' ? { weeks: 1 } : { days: 1 };
  if (windowStart(start, spec, timezone, offsetSeconds).getTime() !== start.getTime()) {
    return local.plus(period).toJSDate();
  }
  const base = spec.unit === 'week' ? sundayOf(local) : local.startOf('day');
  // The boundary after `start` is on the next day (week), whatever the DST change did to this one.
  const next = boundaryOn(base.plus(period), offsetSeconds);
  return (next > local ? next : boundaryOn(base.plus(period).plus(period), offsetSeconds)).toJSDate();
}
