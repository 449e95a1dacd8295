const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * A time as the analytics tables store it: UTC, 'YYYY-MM-DD HH:MM:SS.ffffff'. `micros` (0-999)
 * adds sub-millisecond precision, which a JS Date lacks. Throws on an invalid date.
 */
export function formatTimestamp(value: Date | number, micros = 0): string {
  const d = typeof value === 'number' ? new Date(value) : value;
  if (Number.isNaN(d.getTime())) throw new RangeError('invalid date');
  const year = d.getUTCFullYear();
  if (year < 1900 || year > 2299) throw new RangeError(`timestamp out of range: ${year}`);
  return (
    `${year}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.` +
    `${pad(d.getUTCMilliseconds(), 3)}${pad(Math.trunc(micros), 3)}`
  );
}
