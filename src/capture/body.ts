import secureJson from 'secure-json-parse';
import { type Codec, codecOf, decodeBase64, decompress, hasGzipMagic } from './bytes.js';
import { decodedTooLarge, malformed, noData } from './errors.js';
import { lz64Decompress } from './lz64.js';
import type { DecodeInput } from './types.js';

/**
 * Turns a capture request into the JSON value the SDK serialised, whatever the wrapping:
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
 * `ver`, `_` and other parameters are not read here.
 */
export function decodeBody(input: DecodeInput, max: number): unknown {
  const queryCompression = (input.query.compression ?? '').toLowerCase();
  const body = input.method === 'POST' && input.body && input.body.length > 0 ? input.body : undefined;
  if (!body) {
    const data = input.query.data;
    if (data === undefined || data === '') throw noData();
    return decodeText(data, queryCompression, max);
  }

  let bytes = body;
  let codec: Codec | undefined = codecOf(input.contentEncoding);
  if (!codec && (queryCompression === 'gzip-js' || queryCompression === 'gzip' || hasGzipMagic(bytes))) {
    codec = 'gzip';
  }
  if (codec) bytes = decompress(bytes, codec, max);
  else if (bytes.length > max) throw decodedTooLarge(max);

  const text = bytes.toString('utf8');
  const type = (input.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded' || text.startsWith('data=')) {
    const form = new URLSearchParams(text);
    const data = form.get('data');
    if (data === null || data === '') throw noData();
    return decodeText(data, queryCompression || (form.get('compression') ?? '').toLowerCase(), max);
  }
  // Already gunzipped: a leftover gzip-js/gzip parameter says nothing about the text any more.
  return decodeText(text, codec ? '' : queryCompression, max);
}

function decodeText(text: string, compression: string, max: number): unknown {
  // Neither base64 nor lz64 text can start with `{` or `[`: JSON is JSON whatever the parameter says.
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return parseJson(text);
  if (compression === 'lz64') return parseJson(lz64Decompress(text.replace(/[\r\n]/g, ''), max));
  return parseJson(fromBase64(text, max));
}

/** Base64 of JSON, or of gzipped JSON (magic bytes), as UTF-8 text. */
function fromBase64(text: string, max: number): string {
  const bytes = decodeBase64(text);
  const plain = hasGzipMagic(bytes) ? decompress(bytes, 'gzip', max) : bytes;
  return plain.toString('utf8');
}

/** `__proto__` keys are dropped (not refused: SDK properties are user data, not our objects). */
function parseJson(text: string): unknown {
  try {
    return secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
  } catch (error) {
    throw malformed(`invalid JSON (${(error as Error).message})`);
  }
}
