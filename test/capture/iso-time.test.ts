import { describe, expect, it } from 'vitest';
import { isoUtc, parseIsoUtc } from '../../src/capture/iso-time.js';
import { parseTime } from '../../src/capture/normalize.js';
import { seededRandom } from '../helpers/random.js';

const MIN = -62_167_219_200_000; // 0000-01-01T00:00:00.000Z
const MAX = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z

/** Capture's own ISO reading and writing give exactly what V8's `Date` does. */
describe('ISO times on the capture path', () => {
  it('formats every millisecond of years 0–9999 as toISOString does', () => {
    const next = seededRandom(22);
    const samples = [MIN, MAX, 0, -1, 1, 951_782_400_000 /* 2000-02-29 */, Date.now()];
    for (let i = 0; i < 50_000; i++) samples.push(Math.floor(MIN + next() * (MAX - MIN)));
    // Runs of nearby times, as a request's events are: the kept day must change at midnight.
    for (let i = 0; i < 5_000; i++) samples.push(1_795_824_000_000 - 5_000 + i * 7);
    for (const ms of samples) expect(isoUtc(ms)).toBe(new Date(ms).toISOString());
  });

  it('leaves times outside years 0–9999 and fractions to V8', () => {
    for (const ms of [MIN - 1, MAX + 1, 8.64e15, -8.64e15, 1.5, -0.5]) {
      expect(isoUtc(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it('reads toISOString text as Date.parse does', () => {
    const next = seededRandom(9);
    for (let i = 0; i < 50_000; i++) {
      const text = new Date(Math.floor(MIN + next() * (MAX - MIN))).toISOString();
      expect(parseIsoUtc(text)).toBe(Date.parse(text));
    }
  });

  it('agrees with Date.parse on dates that do not exist and odd times, or leaves them to it', () => {
    const odd = [
      '2026-02-29T10:00:00.000Z',
      '2024-02-29T10:00:00.000Z',
      '2026-02-30T10:00:00.000Z',
      '2026-13-01T10:00:00.000Z',
      '2026-00-10T10:00:00.000Z',
      '2026-04-31T10:00:00.000Z',
      '2026-04-00T10:00:00.000Z',
      '2026-11-28T24:00:00.000Z',
      '2026-11-28T23:60:00.000Z',
      '2026-11-28T23:59:60.000Z',
      '2026-11-28T1a:00:00.000Z',
      '2026-11-28T10:00:00.00aZ',
      '2026-11-28 10:00:00.000Z',
      '2026-11-28T10:00:00Z',
      '2026-11-28T10:00:00.1234Z',
      '+02026-11-28T10:00:00.0Z',
      '0000-01-01T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
    ];
    for (const text of odd) {
      const fast = parseIsoUtc(text);
      if (fast !== undefined) expect(fast).toBe(Date.parse(text));
      const parsed = Date.parse(text);
      expect(parseTime(text)).toBe(Number.isNaN(parsed) ? undefined : parsed);
    }
  });

  it('gives the same answer for a day whether or not the day before was read first', () => {
    // The kept day must not leak: an invalid day after a valid one, and back.
    expect(parseIsoUtc('2026-11-28T10:00:00.000Z')).toBe(Date.parse('2026-11-28T10:00:00.000Z'));
    // V8 rolls February 30th over to March 2nd, but refuses month 13.
    expect(parseIsoUtc('2026-02-30T10:00:00.000Z')).toBe(Date.parse('2026-03-02T10:00:00.000Z'));
    expect(parseIsoUtc('2026-13-01T10:00:00.000Z')).toBe(undefined);
    expect(parseIsoUtc('2026-13-01T11:00:00.000Z')).toBe(undefined);
    expect(parseIsoUtc('2026-11-28T11:00:00.000Z')).toBe(Date.parse('2026-11-28T11:00:00.000Z'));
  });
});
