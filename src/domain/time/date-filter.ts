import { validationError } from '../../errors.js';
import { isDateExpression, parseDate } from './relative-date.js';

const DATE_ONLY = /^\s*\d{4}-\d{1,2}-\d{1,2}\s*$/;

/**
 * A `date_from`/`date_to` of a recording or playlist filter: `all`, or anything PostHog's
 * relative_date_parse reads. Checked when the filter is stored, resolved when it is used.
 */
export function checkDateFilter(value: string, attr: string): string {
  if (value === 'all' || isDateExpression(value)) return value;
  throw validationError(
    `Invalid date: "${value}". Use a date, a datetime or a relative date like -7d.`,
    attr,
  );
}

/**
 * The instant a filter date names, read as PostHog's relative_date_parse reads it (no truncation:
 * `-7d` is exactly seven days ago); null for `all`. With `end`, a date without a time means the
 * last moment of that day, as PostHog's recording date ranges read a bare date_to.
 */
export function resolveDateFilter(
  value: string,
  context: { timezone: string; now: Date },
  end: boolean,
): Date | null {
  if (value === 'all') return null;
  const { at } = parseDate(value, { timezone: context.timezone, now: context.now });
  return (end && DATE_ONLY.test(value) ? at.endOf('day') : at).toJSDate();
}
