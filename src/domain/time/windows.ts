import { DateTime, type Zone } from 'luxon';
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
const HOUR_MS = 60 * MINUTE_MS;

const mod = (a: number, b: number) => ((a % b) + b) % b;
const offsetMs = (zone: Zone, at: number) => zone.offset(at) * MINUTE_MS;

/**
 * The instant, within (lo, hi], where `zone` stops being `off` ms from UTC; `lo` has that offset
 * and `hi` does not. Clock changes are at most one per window here (none are under an hour apart).
 */
function changeBetween(zone: Zone, off: number, lo: number, hi: number): number {
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetMs(zone, mid) === off) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * Whether the wall clock jumped forward over a boundary at `change`, the first instant with the new
 * offset: that instant starts a window, as a day whose midnight is skipped starts at its first moment.
 */
function jumpsOverBoundary(zone: Zone, change: number, offBefore: number, step: number): boolean {
  const before = change - 1 + offBefore;
  const after = change + offsetMs(zone, change);
  return Math.floor(after / step) > Math.floor(before / step);
}

/**
 * The last instant at or before `at` that starts a window: the wall clock shows a multiple of `step`
 * past midnight (o'clock for hours) or jumps forward over one. A boundary computed with the offset
 * at `at` is kept only when the offset at it is the same: across Lord Howe's half-hour fall-back
 * (02:00 → 01:30 at 15:00Z) 14:30Z would be "01:00" by the later offset, but the clock showed 01:30
 * then. Otherwise the wall clock has not reached a boundary since the change, and the search goes on
 * from the change.
 */
function boundaryAtOrBefore(zone: Zone, at: number, step: number): number {
  let t = at;
  for (;;) {
    const off = offsetMs(zone, t);
    const candidate = t - mod(t + off, step);
    const offCandidate = offsetMs(zone, candidate);
    if (offCandidate === off) return candidate;
    const change = changeBetween(zone, offCandidate, candidate, t);
    if (jumpsOverBoundary(zone, change, offCandidate, step)) return change;
    t = change - 1;
  }
}

/** The first window start strictly after `after`. */
function boundaryAfter(zone: Zone, after: number, step: number): number {
  let t = after + 1;
  for (;;) {
    const off = offsetMs(zone, t);
    const candidate = t + mod(-(t + off), step);
    if (offsetMs(zone, candidate) === off) return candidate;
    const change = changeBetween(zone, off, t, candidate);
    if (jumpsOverBoundary(zone, change, off, step)) return change;
    t = change;
  }
}

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

/** Length of a minute or hour window's step on the local clock. */
const stepOf = (spec: WindowSpec) => (spec.unit === 'hour' ? HOUR_MS : spec.count * MINUTE_MS);

/**
 * Start of the window holding `at`. Minute and hour windows follow the local clock (in zones off
 * UTC by a part of an hour, hour windows start at local o'clock; where the clocks move by half an
 * hour, the hour window of the change is 30 or 90 minutes long); day and week windows start at local midnight plus the
 * offset, on the calendar, across DST changes.
 */
export function windowStart(at: Date, spec: WindowSpec, timezone: string, offsetSeconds = 0): Date {
  const zone = zoneOf(timezone);
  if (spec.unit === 'hour' || spec.unit === 'minute') {
    return new Date(boundaryAtOrBefore(zone, at.getTime(), stepOf(spec)));
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
  const zone = zoneOf(timezone);
  if (spec.unit === 'hour' || spec.unit === 'minute') {
    const step = stepOf(spec);
    const from = start.getTime();
    // A window that begins off the schedule (a backfill's own start) runs one step from there.
    if (boundaryAtOrBefore(zone, from, step) !== from) return new Date(from + step);
    return new Date(boundaryAfter(zone, from, step));
  }
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
