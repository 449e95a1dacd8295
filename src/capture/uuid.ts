import { randomBytes } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LOWER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NIL = '00000000-0000-0000-0000-000000000000';

/** A hyphenated UUID of any version, lower-cased; the nil UUID and anything else are not kept. */
export function validUuid(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // What the SDKs send: already lower case, kept as the same string (no copy).
  if (LOWER.test(value)) return value === NIL ? undefined : value;
  if (!UUID.test(value)) return undefined;
  const lower = value.toLowerCase();
  return lower === NIL ? undefined : lower;
}

/** RFC 9562 UUIDv7: 48-bit Unix milliseconds, version 7, variant 10, 74 random bits. */
export function uuidv7(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(Math.max(0, Math.floor(now)) % 2 ** 48, 0, 6);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
