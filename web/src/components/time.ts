/**
 * One rule for times in the console: every time is shown in the project's time zone (as PostHog
 * does), never the browser's, and pages say which zone that is. Insights already bucket days there.
 */

const formats = new Map<string, Intl.DateTimeFormat>();

function formatter(timezone: string, kind: 'datetime' | 'date' | 'time'): Intl.DateTimeFormat {
  const key = `${timezone}|${kind}`;
  let f = formats.get(key);
  if (!f) {
    const parts: Intl.DateTimeFormatOptions =
      kind === 'date'
        ? { year: 'numeric', month: 'short', day: 'numeric' }
        : kind === 'time'
          ? { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }
          : {
              year: 'numeric',
              month: 'short',
              day: 'numeric',
              hour: '2-digit',
              minute: '2-digit',
              second: '2-digit',
              hourCycle: 'h23',
            };
    try {
      f = new Intl.DateTimeFormat(undefined, { ...parts, timeZone: timezone });
    } catch {
      // A zone this browser does not know: UTC is what the server falls back to as well.
      f = new Intl.DateTimeFormat(undefined, { ...parts, timeZone: 'UTC' });
    }
    formats.set(key, f);
  }
  return f;
}

/** A timestamp without an offset ("2026-01-02 10:00:00", as SQL answers) is UTC, not local time. */
export function parseTime(value: string | number | Date): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'number') return new Date(value);
  const bare = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(value);
  return new Date(bare ? `${value.replace(' ', 'T')}Z` : value);
}

/** Date and time in the project's zone, e.g. "Nov 28, 2026, 14:05:09". */
export function formatDateTime(value: string | number | Date, timezone: string): string {
  const d = parseTime(value);
  return Number.isNaN(d.getTime()) ? String(value) : formatter(timezone, 'datetime').format(d);
}

/** The day in the project's zone, e.g. "Nov 28, 2026". */
export function formatDate(value: string | number | Date, timezone: string): string {
  const d = parseTime(value);
  return Number.isNaN(d.getTime()) ? String(value) : formatter(timezone, 'date').format(d);
}

/** The time of day in the project's zone, e.g. "14:05:09". */
export function formatTimeOfDay(value: string | number | Date, timezone: string): string {
  const d = parseTime(value);
  return Number.isNaN(d.getTime()) ? String(value) : formatter(timezone, 'time').format(d);
}

/** The zone's name as the label beside times: "UTC", "Europe/Paris". */
export function zoneLabel(timezone: string): string {
  return timezone === 'Etc/UTC' || timezone === 'GMT' ? 'UTC' : timezone;
}
