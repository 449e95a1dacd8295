import { gzipSync } from 'node:zlib';
import type { FieldSpecs } from '../../domain/batch-exports/destinations/config.js';
import {
  type Destination,
  PermanentError,
  type Writer,
} from '../../domain/batch-exports/destinations/types.js';
import { validationError } from '../../errors.js';
import { assertHostAllowed, BlockedHostError, type NetworkPolicy, validateHost } from '../network.js';
import { batchBody } from './http-body.js';
import { destinationRequest } from './http-request.js';
import { httpSteps } from './http-steps.js';

export const HTTP_FIELDS: FieldSpecs = {
  url: { type: 'str', required: true },
  token: { type: 'str', required: true, secret: true },
};

/** Events per request: well under capture's 20 MB `/batch/` limit for typical events. */
const BATCH_EVENTS = 1000;
const ATTEMPTS = 4;

export function parseUrl(raw: unknown): URL {
  let url: URL | undefined;
  try {
    url = new URL(String(raw));
  } catch {}
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw validationError(`Invalid destination URL: ${String(raw)}`, 'destination');
  }
  return url;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });

/** Sends one body; retries network errors, 429 and 5xx (honouring Retry-After), fails on other 4xx. */
async function post(policy: NetworkPolicy, url: URL, body: Buffer, signal: AbortSignal): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    let wait = 2 ** attempt * 250;
    try {
      const res = await destinationRequest(policy, url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body,
        signal,
      });
      const { status, text } = res;
      if (status >= 200 && status < 300) return;
      if (status !== 429 && status < 500)
        throw new PermanentError(`The destination answered ${status}: ${text.slice(0, 300)}`);
      wait = Math.max(wait, Math.min(30, Number(res.retryAfter) || 0) * 1000);
      if (attempt >= ATTEMPTS) throw new Error(`The destination answered ${status}: ${text.slice(0, 300)}`);
    } catch (error) {
      // A refused address does not become allowed by asking again.
      if (error instanceof BlockedHostError) throw new PermanentError(error.message);
      if (error instanceof PermanentError || signal.aborted || attempt >= ATTEMPTS) throw error;
    }
    await sleep(wait, signal);
  }
}

export function httpDestination(policy: NetworkPolicy): Destination {
  return {
    fields: HTTP_FIELDS,
    async validate(config, model) {
      if (model !== 'events')
        throw validationError('HTTP batch exports only support the events model', 'destination');
      await validateHost(policy, parseUrl(config.url).hostname);
      return undefined;
    },
    steps: httpSteps(policy),
    async open(config, ctx): Promise<Writer> {
      const url = parseUrl(config.url);
      await assertHostAllowed(policy, url.hostname);
      const token = String(config.token);
      const names = new Set(ctx.schema.columns.map((c) => c.name));
      if (!names.has('event') || !names.has('distinct_id'))
        throw new PermanentError('An HTTP batch export query must select event and distinct_id');
      return {
        async write(rows) {
          let bytes = 0;
          for (let i = 0; i < rows.length; i += BATCH_EVENTS) {
            const body = gzipSync(batchBody(token, rows.slice(i, i + BATCH_EVENTS), ctx.schema));
            await post(policy, url, body, ctx.signal);
            bytes += body.length;
          }
          return bytes;
        },
        async close() {
          return 0;
        },
        async abort() {},
      };
    },
  };
}
