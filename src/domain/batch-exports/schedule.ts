import { type WindowSpec, windowEnd, windowStart } from '../time/windows.js';
import type { Interval } from './types.js';

const MINUTE = 60_000;

/** An export interval as the time module's window schedule. */
function specOf(interval: Interval): WindowSpec {
  switch (interval) {
    case 'every 5 minutes':
      return { unit: 'minute', count: 5 };
    case 'every 15 minutes':
      return { unit: 'minute', count: 15 };
    default:
      return { unit: interval, count: 1 };
  }
}

/** Nominal length, used for backoff, jitter, progress estimates and how far ahead a backfill may end. */
export function intervalMs(interval: Interval): number {
  const { unit, count } = specOf(interval);
  const minutes = { minute: 1, hour: 60, day: 1440, week: 7 * 1440 }[unit];
  return minutes * count * MINUTE;
}

/** Start of the export window holding `at` (time module: domain/time/windows.ts). */
export function exportWindowStart(at: Date, interval: Interval, tz: string, offsetSeconds: number | null) {
  return windowStart(at, specOf(interval), tz, offsetSeconds ?? 0);
}

/** End of the export window starting at `start`. */
export function exportWindowEnd(start: Date, interval: Interval, tz: string, offsetSeconds: number | null) {
  return windowEnd(start, specOf(interval), tz, offsetSeconds ?? 0);
}
