import { type Codec, codecOf, decodeBase64, hasGzipMagic } from './bytes.js';
import { decodedTooLarge, noData } from './errors.js';
import { skipSpace } from './json-scan.js';
import { lz64Steps } from './lz64.js';
import type { Steps } from './steps.js';
import type { DecodeInput } from './types.js';

/**
 * Turns a capture request into the JSON text the SDK serialised (UTF-8 bytes), whatever the
 * wrapping:
 *
 * - body: `Content-Encoding` (gzip, deflate, br), or `?compression=gzip-js|gzip`, or the gzip
 *   magic bytes `1f 8b` whatever the headers say (posthog-js sends gzip as `text/plain` with
 *   neither a header nor, since it strips it, a `compression` parameter);
 * - then a form body (`application/x-www-form-urlencoded`, or any body starting `data=`): its
 *   `data` field is the payload; `compression` may also come as a form field;
 * - GET, or a POST without a body: the `?data=` parameter;
 * - the payload text: JSON if it starts with `{` or `[`; else lz-string base64 with
 *   `compression=lz64`; else base64 of JSON (or of gzipped JSON), whatever `compression` says
 *   (PostHog's capture also falls back from JSON to base64).
 *
 * Every step is capped at `max` bytes of output (413). `ver`, `_` and other parameters are not
 * read here.
 */
export function* payloadBytes(input: DecodeInput, max: number): Steps<Buffer> {
  const queryCompression = (input.query.compression ?? '').toLowerCase();
  const body = input.method === 'POST' && input.body && input.body.length > 0 ? input.body : undefined;
  if (!body) {
    const data = input.query.data;
    if (data === undefined || data === '') throw noData();
    return yield* fromText(data, queryCompression, max);
  }

  let bytes = body;
  let codec: Codec | undefined = codecOf(input.contentEncoding);
  if (!codec && (queryCompression === 'gzip-js' || queryCompression === 'gzip' || hasGzipMagic(bytes))) {
    codec = 'gzip';
  }
  if (codec) bytes = (yield { kind: 'inflate', bytes, codec, max }) as Buffer;
  else if (bytes.length > max) throw decodedTooLarge(max);

  const type = (input.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded' || startsWith(bytes, 'data=')) {
    const form = new URLSearchParams(bytes.toString('utf8'));
    const data = form.get('data');
    if (data === null || data === '') throw noData();
    return yield* fromText(data, queryCompression || (form.get('compression') ?? '').toLowerCase(), max);
  }
  if (startsJson(bytes)) return bytes;
  // Already gunzipped: a leftover gzip-js/gzip parameter says nothing about the text any more.
  return yield* fromText(bytes.toString('utf8'), codec ? '' : queryCompression, max);
}

const startsWith = (bytes: Buffer, prefix: string) =>
  bytes.length >= prefix.length && bytes.toString('latin1', 0, prefix.length) === prefix;

/** Neither base64 nor lz64 text can start with `{` or `[`: JSON is JSON whatever the parameter says. */
function startsJson(bytes: Buffer): boolean {
  const first = bytes[skipSpace(bytes, 0)];
  return first === 0x7b || first === 0x5b;
}

function* fromText(text: string, compression: string, max: number): Steps<Buffer> {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return capped(Buffer.from(text, 'utf8'), max);
  if (compression === 'lz64') {
    return capped(Buffer.from(yield* lz64Steps(text.replace(/[\r\n]/g, ''), max), 'utf8'), max);
  }
  // Base64 of JSON, or of gzipped JSON (magic bytes).
  const bytes = decodeBase64(text);
  if (hasGzipMagic(bytes)) return (yield { kind: 'inflate', bytes, codec: 'gzip', max }) as Buffer;
  return capped(bytes, max);
}

function capped(bytes: Buffer, max: number): Buffer {
  if (bytes.length > max) throw decodedTooLarge(max);
  return bytes;
}
