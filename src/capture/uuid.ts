import { randomUUID } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NIL = '00000000-0000-0000-0000-000000000000';

/**
 * A lower-case hex digit's value by UTF-16 code unit, -1 for every other one: shared by the uuid
 * check here and the recent-uuid tables (domain/ingest/recent-uuids.ts), which read the digits.
 */
export const LOWER_HEX = new Int8Array(65_536).fill(-1);
for (let i = 0; i < 16; i++) LOWER_HEX['0123456789abcdef'.charCodeAt(i)] = i;

/**
 * A lower-case hyphenated uuid, checked character by character: what every SDK event carries, so
 * it runs once per captured event, where the equivalent regular expression took ~2% of the
 * capture path's main thread (docs/benchmarks-history.md, "Issue 22, session 7").
 */
export function isLowerUuid(value: string): boolean {
  if (value.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = value.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45 /* - */) return false;
    } else if ((LOWER_HEX[c] as number) < 0) {
      return false;
    }
  }
  return true;
}

/** A hyphenated UUID of any version, lower-cased; the nil UUID and anything else are not kept. */
export function validUuid(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // What the SDKs send: already lower case, kept as the same string (no copy).
  if (isLowerUuid(value)) return value === NIL ? undefined : value;
  if (!UUID.test(value)) return undefined;
  const lower = value.toLowerCase();
  return lower === NIL ? undefined : lower;
}

/**
 * RFC 9562 UUIDv7: 48-bit Unix milliseconds, version 7, variant 10, 74 random bits. The random
 * bits are a v4 uuid's (`randomUUID` draws from a cached pool; `randomBytes(16)` per call cost
 * ~3 µs, a tenth of creating a person), whose variant bits already read 10.
 */
export function uuidv7(now: number = Date.now()): string {
  const ms = (Math.max(0, Math.floor(now)) % 2 ** 48).toString(16).padStart(12, '0');
  // randomUUID(): xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx; from index 15 on, all but the version.
  return `${ms.slice(0, 8)}-${ms.slice(8)}-7${randomUUID().slice(15)}`;
}
