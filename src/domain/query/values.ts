import { DateTime } from 'luxon';

/**
 * Engine values as PostHog's JSON shows them. The engine prints a DateTime as wall time in the
 * column's zone ('2025-01-15 10:00:00.250000'); PostHog's encoder writes ISO 8601 with the
 * offset, `Z` for UTC and microseconds only when there are some ('2025-01-15T10:00:00.250000Z').
 */
const UTC_ZONES = new Set(['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT', 'Universal', 'Zulu']);
const WALL = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d+))?$/;

export function isoDateTime(value: unknown, zone: string): unknown {
  if (typeof value !== 'string') return value;
  const m = WALL.exec(value);
  if (!m) return value;
  const [, date, time, fraction] = m as unknown as [string, string, string, string | undefined];
  const micros = (fraction ?? '').padEnd(6, '0').slice(0, 6);
  const frac = /^0*$/.test(micros) ? '' : `.${micros}`;
  // Most projects are in UTC: no zone arithmetic (luxon's costs ~10 µs a value, 1 ms a page).
  if (UTC_ZONES.has(zone)) return `${date}T${time}${frac}Z`;
  const at = DateTime.fromISO(`${date}T${time}`, { zone });
  if (!at.isValid) return value;
  const offset = at.offset === 0 ? 'Z' : at.toFormat('ZZ');
  return `${date}T${time}${frac}${offset}`;
}

const DATETIME_TYPE =
  /^(?:Nullable\()?(?:LowCardinality\()?DateTime(?:64)?(?:\((?:\d+)?(?:, )?(?:'([^']+)')?\))?\)*$/;

/** The zone of a (nullable) DateTime column type, the query's zone when the type names none; else null. */
export function dateTimeZone(type: string, fallback: string): string | null {
  const m = DATETIME_TYPE.exec(type);
  if (!m) return null;
  return m[1] ?? fallback;
}

/** Rewrites DateTime columns of every row in place to PostHog's ISO form. */
export function isoDateTimeColumns(rows: unknown[][], types: string[], fallbackZone: string): void {
  types.forEach((type, i) => {
    const zone = dateTimeZone(type, fallbackZone);
    if (!zone) return;
    for (const row of rows) row[i] = isoDateTime(row[i], zone);
  });
}

/** A JSON text column as an object; `{}` for empty or broken text (PostHog's person properties). */
export function parseJsonObject(text: unknown): Record<string, unknown> {
  if (typeof text === 'object' && text !== null) return text as Record<string, unknown>;
  if (typeof text !== 'string' || !text) return {};
  try {
    const out = JSON.parse(text) as unknown;
    return typeof out === 'object' && out !== null && !Array.isArray(out)
      ? (out as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
