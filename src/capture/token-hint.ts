import { constants, gunzipSync } from 'node:zlib';
import { codecOf, hasGzipMagic } from './bytes.js';
import { nonEmptyString } from './fields.js';
import type { DecodeInput } from './types.js';

/** Bytes of JSON looked at for a token: the envelope's `api_key`, or the first event's token. */
const HINT_BYTES = 16 * 1024;
/**
 * Compressed bytes inflated for them: a few KiB of SDK JSON (the start of a gzip stream compresses
 * least). zlib inflates a prefix only to the end (it cannot stop at a size and return what it
 * has), so the output is bounded by the input instead: gzip expands at most ~1000 times, and
 * past `HINT_MAX_OUTPUT` (a bomb) there is no hint.
 */
const HINT_INPUT = 1024;
const HINT_MAX_OUTPUT = 256 * 1024;

/**
 * The project a capture request is probably for, before it is decoded, so that its decoding waits
 * in its project's line (docs/isolation.md, "Capture"). It is only a hint: the decoder's token
 * (decode.ts) decides where the events go, and a wrong or missing hint only puts the request's
 * decoding in another line (the unknown one when `undefined`).
 *
 * Looked for, cheaply: `?token=` / `?api_key=`; else the first `"api_key"` or `"token"` string
 * member in the first 16 KiB of a JSON body, inflating at most 1 KiB of a gzip body for it
 * (posthog-node puts `api_key` first; posthog-js sends gzip with `properties.token` in the first
 * event). Form, base64 and lz64 bodies give no hint.
 */
export function tokenHint(input: DecodeInput): string | undefined {
  const fromQuery = nonEmptyString(input.query.token) ?? nonEmptyString(input.query.api_key);
  if (fromQuery) return fromQuery;
  const body = input.body;
  if (input.method !== 'POST' || !body || body.length === 0) return undefined;
  let head: Buffer;
  try {
    const codec = codecOf(input.contentEncoding);
    if (codec === 'gzip' || (!codec && hasGzipMagic(body))) {
      head = gunzipSync(body.subarray(0, HINT_INPUT), {
        finishFlush: constants.Z_SYNC_FLUSH,
        maxOutputLength: HINT_MAX_OUTPUT,
      }).subarray(0, HINT_BYTES);
    } else if (codec) {
      return undefined;
    } else {
      head = body.subarray(0, HINT_BYTES);
    }
  } catch {
    // A bomb, corrupt, or an unknown encoding: the decoder answers for those.
    return undefined;
  }
  return tokenIn(head.toString('latin1'));
}

const MEMBER = /"(?:api_key|token)"\s*:\s*"([A-Za-z0-9_-]{1,200})"/;

function tokenIn(text: string): string | undefined {
  if (!(text.startsWith('{') || text.startsWith('['))) return undefined;
  return MEMBER.exec(text)?.[1];
}
