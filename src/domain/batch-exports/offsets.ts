import { validationError } from '../../errors.js';
import type { Interval } from './types.js';

/**
 * `offset_day` (0 = Sunday, weekly exports) and `offset_hour` (daily and weekly exports) move
 * where windows start; PostHog stores them as one `interval_offset` in seconds.
 */
export function offsetField(value: number | null | undefined, attr: string, max: number) {
  if (value === null || value === undefined) return value;
  if (value < 0) throw validationError('Ensure this value is greater than or equal to 0.', attr, 'min_value');
  if (value > max)
    throw validationError(`Ensure this value is less than or equal to ${max}.`, attr, 'max_value');
  return value;
}

/** PostHog's `interval_offset` from `offset_day` and `offset_hour` (null when neither applies). */
export function intervalOffset(offsetDay: number | null, offsetHour: number | null): number | null {
  if (offsetDay === null && offsetHour === null) return null;
  return (offsetDay ?? 0) * 86_400 + (offsetHour ?? 0) * 3600;
}

const dayOf = (offset: number | null) => (offset === null ? null : Math.floor(offset / 86_400));
const hourOf = (offset: number | null) => (offset === null ? null : Math.floor((offset % 86_400) / 3600));

/**
 * The offset an export ends up with: the parts given (undefined: keep the stored part) checked
 * against the interval; a part the interval does not use is dropped when the interval changes.
 */
export function resolveOffset(
  interval: Interval,
  given: { day: number | null | undefined; hour: number | null | undefined },
  stored: number | null,
): number | null {
  const weekly = interval === 'week';
  const daily = weekly || interval === 'day';
  if (given.day !== undefined && given.day !== null && !weekly)
    throw validationError('offset_day is not applicable for non-weekly intervals', 'offset_day');
  if (given.hour !== undefined && given.hour !== null && !daily)
    throw validationError('offset_hour is not applicable for non-daily/weekly intervals', 'offset_hour');
  if (!daily) return null;
  const day = given.day !== undefined ? given.day : weekly ? dayOf(stored) : null;
  const hour = given.hour !== undefined ? given.hour : hourOf(stored);
  return intervalOffset(day, hour);
}

/** The offsets as the API shows them: null where the interval has none. */
export function offsetView(interval: string, offset: number | null) {
  return {
    offset_day: interval === 'week' ? dayOf(offset) : null,
    offset_hour: interval === 'week' || interval === 'day' ? hourOf(offset) : null,
  };
}
