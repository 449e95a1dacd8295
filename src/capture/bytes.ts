import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { decodedTooLarge, malformed, unsupportedEncoding } from './errors.js';

export type Codec = 'gzip' | 'deflate' | 'br';

/** `Content-Encoding` → codec; `identity` and none are `undefined`; anything else is a 415. */
export function codecOf(contentEncoding: string | undefined): Codec | undefined {
  const value = (contentEncoding ?? '').trim().toLowerCase();
  if (value === '' || value === 'identity') return undefined;
  if (value === 'gzip' || value === 'x-gzip') return 'gzip';
  if (value === 'deflate' || value === 'br') return value;
  throw unsupportedEncoding(value);
}

export const hasGzipMagic = (bytes: Uint8Array): boolean =>
  bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

/**
 * Decompresses with a cap on the output: zlib stops and throws `ERR_BUFFER_TOO_LARGE` as soon as
 * the output would pass `max`, so a zip bomb costs at most `max` bytes of memory (→ 413).
 * Corrupt or truncated input is a 400.
 */
export function decompress(bytes: Buffer, codec: Codec, max: number): Buffer {
  try {
    if (codec === 'gzip') return gunzipSync(bytes, { maxOutputLength: max });
    if (codec === 'deflate') return inflateSync(bytes, { maxOutputLength: max });
    return brotliDecompressSync(bytes, { maxOutputLength: max });
  } catch (error) {
    throw decompressError(error, codec, max);
  }
}

/** zlib's error as the client's: the output cap is a 413, anything else a 400. */
export function decompressError(error: unknown, codec: Codec, max: number) {
  if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return decodedTooLarge(max);
  return malformed(`failed to decompress data (${codec}): ${(error as Error).message}`);
}

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * Standard or URL-safe base64, padding optional. Spaces are read as `+` (a `+` that reached a
 * form or query string unescaped decodes to a space; PostHog's capture undoes it the same way)
 * and line breaks are ignored. Anything else outside the alphabet is a 400, where `Buffer.from`
 * would silently skip it.
 */
export function decodeBase64(text: string): Buffer {
  const clean = text.replace(/ /g, '+').replace(/[\r\n]/g, '');
  if (!BASE64.test(clean) || clean.replace(/=+$/, '').length % 4 === 1) {
    throw malformed('data is not valid base64');
  }
  return Buffer.from(clean, 'base64');
}
