import { DateTime, type IANAZone } from 'luxon';

const DAY_MS = 86_400_000;

/**
 * The wall clock an instant shows in its zone, as a UTC DateTime: arithmetic on it is pure
 * calendar/clock arithmetic with no DST, which is how PostHog's Python code moves dates (adding a
 * relativedelta to a zone-aware datetime keeps the zone and ignores DST changes).
 */
export function wallOf(at: DateTime): DateTime {
  return at.setZone('UTC', { keepLocalTime: true });
}

/**
 * The instant at which `zone`'s clocks show `wall` (a UTC DateTime holding wall-clock fields), as
 * Python resolves a zone-aware datetime with fold=0: a time shown twice (clocks going back) is the
 * first of the two; a time never shown (clocks going forward) is read with the offset before the
 * change, so it lands as far after the gap as it was into it.
 */
export function instantOf(wall: DateTime, zone: IANAZone): DateTime {
  const local = wall.toMillis();
  const before = zone.offset(local - DAY_MS);
  const after = zone.offset(local + DAY_MS);
  const candidates = [before, after]
    .map((offset) => local - offset * 60_000)
    .filter((utc, i, all) => all.indexOf(utc) === i)
    .filter((utc) => utc + zone.offset(utc) * 60_000 === local)
    .sort((a, b) => a - b);
  const utc = candidates[0] ?? local - before * 60_000;
  return DateTime.fromMillis(utc, { zone });
}
