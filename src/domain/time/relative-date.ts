import { DateTime, IANAZone } from 'luxon';
import { DateRangeError } from './errors.js';
import { instantOf, wallOf } from './wall-clock.js';

/** `-7d`, `-1mStart`, `dEnd`: amount, unit and snap. Units as PostHog: M is minutes, m months. */
export interface RelativeDate {
  amount: number;
  unit: 'h' | 'd' | 'w' | 'm' | 'q' | 'y' | 's' | 'M';
  position: 'Start' | 'End' | null;
}

export interface ParsedDate {
  /** The instant, in the project timezone. */
  at: DateTime;
  /** Null for absolute (ISO) dates. */
  relative: RelativeDate | null;
}

export interface ParseOptions {
  timezone: string;
  now: Date;
  /** Truncate a relative date to its hour (hour offsets) or day (anything else), as date_from is. */
  alwaysTruncate?: boolean;
  /** Names the field in errors. */
  attr?: string;
}

const RELATIVE = /^-?(\d+)?([hdwmqysM])(Start|End)?$/;
const UNPADDED_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;

export function zoneOf(timezone: string): IANAZone {
  if (!IANAZone.isValidZone(timezone)) throw new DateRangeError(`Unknown timezone "${timezone}".`);
  return IANAZone.create(timezone);
}

const HAS_OFFSET = /(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/**
 * ISO date or datetime; without an offset it is wall time in the project timezone (a time shown
 * twice when clocks go back is the first, as PostHog reads it).
 */
function parseAbsolute(input: string, zone: IANAZone): DateTime | null {
  const unpadded = UNPADDED_DATE.exec(input);
  if (unpadded) {
    const [, year, month, day] = unpadded.map(Number) as [number, number, number, number];
    const date = DateTime.fromObject({ year, month, day }, { zone: 'UTC' });
    return date.isValid ? instantOf(date, zone) : null;
  }
  if (!/^\d{4}/.test(input)) return null;
  const iso = input.replace(/^(\d{4}-\d{2}-\d{2}) (?=\d)/, '$1T');
  const parsed = DateTime.fromISO(iso, { zone: 'UTC', setZone: true });
  if (!parsed.isValid) return null;
  return HAS_OFFSET.test(iso) ? parsed.setZone(zone) : instantOf(parsed, zone);
}

/** Whether `input` is a date PostHog's relative_date_parse reads (ISO or relative); `all` is not. */
export function isDateExpression(input: string): boolean {
  const trimmed = input.trim();
  return RELATIVE.test(trimmed) || parseAbsolute(trimmed, IANAZone.create('UTC')) !== null;
}

/**
 * Moves a wall clock back by the relative amount and applies the snap. Every unit moves the wall
 * clock, hours and minutes included, as PostHog's relativedelta on a zone-aware datetime does: on
 * the day clocks go back, `-24h` is 25 hours ago. Months clamp to the month's last day (31 March
 * minus a month is 29 February); `Start`/`End` of months and years set only the day (and month),
 * keeping the time of day, as PostHog's delta mapping does; date ranges truncate afterwards.
 */
function moveWall(wall: DateTime, { amount, unit, position }: RelativeDate): DateTime {
  switch (unit) {
    case 'h': {
      const moved = wall.minus({ hours: amount });
      if (position === 'Start') return moved.startOf('hour');
      return position === 'End' ? moved.endOf('hour') : moved;
    }
    case 'd': {
      const moved = wall.minus({ days: amount });
      if (position === 'Start') return moved.startOf('day');
      return position === 'End' ? moved.endOf('day') : moved;
    }
    case 'w':
      return wall.minus({ weeks: amount }); // PostHog snaps weeks to nothing
    case 'q':
      return wall.minus({ weeks: 13 * amount });
    case 'm': {
      const moved = wall.minus({ months: amount });
      if (position === 'Start') return moved.set({ day: 1 });
      return position === 'End' ? moved.set({ day: moved.daysInMonth! }) : moved;
    }
    case 'y': {
      const moved = wall.minus({ years: amount });
      if (position === 'Start') return moved.set({ month: 1, day: 1 });
      // PostHog's yEnd only sets the day to the month's last, keeping the month.
      return position === 'End' ? moved.set({ day: moved.daysInMonth! }) : moved;
    }
    case 'M':
      return wall.minus({ minutes: amount });
    case 's':
      return wall.minus({ seconds: amount });
  }
}

/**
 * PostHog's relative_date_parse: an ISO date/datetime, or `-<n><unit>[Start|End]` counted back from
 * `now` in the project timezone. Anything else is a 400 (PostHog silently uses "now").
 */
export function parseDate(input: string, options: ParseOptions): ParsedDate {
  const zone = zoneOf(options.timezone);
  const trimmed = input.trim();
  const absolute = parseAbsolute(trimmed, zone);
  if (absolute) return { at: absolute, relative: null };
  const match = RELATIVE.exec(trimmed);
  if (!match) {
    throw new DateRangeError(
      `"${input}" is not a valid date: use an ISO date or datetime, "all", or a relative date like -7d, -24h, -1mStart or dStart.`,
      options.attr ?? null,
    );
  }
  const relative: RelativeDate = {
    amount: match[1] ? Number(match[1]) : 0,
    unit: match[2] as RelativeDate['unit'],
    position: (match[3] as RelativeDate['position']) ?? null,
  };
  let wall = moveWall(wallOf(DateTime.fromJSDate(options.now, { zone })), relative);
  if (!wall.isValid) throw new DateRangeError(`"${input}" is out of range.`, options.attr ?? null);
  if (options.alwaysTruncate) {
    wall = relative.unit === 'h' && match[1] !== undefined ? wall.startOf('hour') : wall.startOf('day');
  }
  return { at: instantOf(wall, zone), relative };
}
