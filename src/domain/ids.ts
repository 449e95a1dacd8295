import { createHash, randomBytes, randomUUID } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random bytes read as one big number and written in base 62, like PostHog's token helpers. */
export function randomBase62(bytes: number): string {
  let n = BigInt(`0x${randomBytes(bytes).toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out || '0';
}

export const newUuid = (): string => randomUUID();

export const newPersonalApiKeyValue = (): string => `phx_${randomBase62(35)}`;

export const newProjectApiToken = (): string => `phc_${randomBase62(32)}`;

/** Primary key of a personal API key row: opaque, URL-safe, not the secret. */
export const newKeyId = (): string => randomBase62(16);

export const hashPersonalApiKey = (value: string): string =>
  `sha256$${createHash('sha256').update(value).digest('hex')}`;

export const maskKeyValue = (value: string): string => `${value.slice(0, 4)}...${value.slice(-4)}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID.test(value);
