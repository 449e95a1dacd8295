/**
 * Every captured event's time is parsed from the SDK's `toISOString()` text and written back as
 * ISO text. V8's `Date.parse` (~350 ns) and `toISOString` (~950 ns, it formats through snprintf)
 * were 6–7% of capture's main thread per event. The events of a request almost always fall on
 * a few days, so the date part is computed by V8 once per day and kept; only the time of day is
 * read and written here. Anything but the plain form goes to V8 as before, so results are V8's.
 */

const DAY_MS = 86_400_000;
const TWO = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const THREE = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

/** Digits at `at` and `at + 1`, or -1 when either is not a digit. */
function two(text: string, at: number): number {
  const a = text.charCodeAt(at) - 48;
  const b = text.charCodeAt(at + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

let parsedDay = -1;
let parsedDayMs = Number.NaN;

/**
 * Epoch milliseconds of `YYYY-MM-DDTHH:MM:SS.sssZ` (what `toISOString` writes), or undefined for
 * any other text, for which the caller asks `Date.parse`. The same value as `Date.parse` gives.
 */
export function parseIsoUtc(text: string): number | undefined {
  if (
    text.length !== 24 ||
    text.charCodeAt(4) !== 45 /* - */ ||
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 84 /* T */ ||
    text.charCodeAt(13) !== 58 /* : */ ||
    text.charCodeAt(16) !== 58 ||
    text.charCodeAt(19) !== 46 /* . */ ||
    text.charCodeAt(23) !== 90 /* Z */
  ) {
    return undefined;
  }
  const century = two(text, 0);
  const year = two(text, 2);
  const month = two(text, 5);
  const date = two(text, 8);
  const hours = two(text, 11);
  const minutes = two(text, 14);
  const seconds = two(text, 17);
  const tenths = two(text, 20);
  const last = text.charCodeAt(22) - 48;
  if (century < 0 || year < 0 || month < 0 || date < 0 || tenths < 0 || !(last >= 0 && last <= 9)) {
    return undefined;
  }
  // 24:00 and leap seconds are V8's to judge.
  if (hours < 0 || hours > 23 || minutes < 0 || minutes > 59 || seconds < 0 || seconds > 59) return undefined;
  const day = century * 1_000_000 + year * 10_000 + month * 100 + date;
  if (day !== parsedDay) {
    // V8 judges the date (it rolls February 30th over to March 2nd, and refuses month 13): its
    // answer for the day, NaN included, is the answer for every time of it.
    parsedDayMs = Date.parse(`${text.slice(0, 10)}T00:00:00.000Z`);
    parsedDay = day;
  }
  if (Number.isNaN(parsedDayMs)) return undefined;
  return parsedDayMs + hours * 3_600_000 + minutes * 60_000 + seconds * 1000 + tenths * 10 + last;
}

let formattedDay = Number.NaN;
let formattedPrefix = '';

/**
 * `new Date(ms).toISOString()` for years 0–9999 (capture clamps event times to them); V8's own
 * answer outside them and for non-integers.
 */
export function isoUtc(ms: number): string {
  if (!Number.isInteger(ms) || ms < -62_167_219_200_000 || ms > 253_402_300_799_999) {
    return new Date(ms).toISOString();
  }
  const day = Math.floor(ms / DAY_MS);
  if (day !== formattedDay) {
    formattedPrefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    formattedDay = day;
  }
  let rest = ms - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  return `${formattedPrefix}${TWO[hours]}:${TWO[minutes]}:${TWO[seconds]}.${THREE[millis]}Z`;
}
