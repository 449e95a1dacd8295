import { destinationRequest } from '../adapters/destinations/http-request.js';
import { assertHostAllowed, BlockedHostError, type NetworkPolicy } from '../adapters/network.js';
import {
  DELIVERY_MAX_ANSWER_BYTES,
  DELIVERY_TIMEOUT_MS,
  type Delivery,
  type Sender,
} from '../domain/destinations/service.js';
import type { OutgoingRequest } from '../domain/destinations/templates.js';

/** Destinations' sender: the network guard (private addresses refused unless allowed), a timeout. */
export const destinationSender =
  (policy: NetworkPolicy, timeoutMs = DELIVERY_TIMEOUT_MS): Sender =>
  (req) =>
    send(policy, req, timeoutMs);

/** Sends one request through the network guard, with a timeout. */
async function send(policy: NetworkPolicy, req: OutgoingRequest, timeoutMs: number): Promise<Delivery> {
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return { status: null, text: '', error: `Invalid URL '${req.url}'`, retryable: false };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { status: null, text: '', error: `Only http(s) URLs are allowed`, retryable: false };
  try {
    // Node connects to an IP literal without a lookup: the pinned lookup alone would not see it.
    await assertHostAllowed(policy, url.hostname);
    const answer = await destinationRequest(policy, url, {
      method: req.method,
      headers: req.headers,
      ...(req.body !== null && { body: req.body }),
      signal: AbortSignal.timeout(timeoutMs),
      maxBytes: DELIVERY_MAX_ANSWER_BYTES,
      keepAlive: true,
    });
    const ok = answer.status >= 200 && answer.status < 300;
    return {
      status: answer.status,
      text: answer.text.slice(0, 1000),
      error: ok ? null : `HTTP ${answer.status}`,
      retryable: answer.status >= 500 || answer.status === 429,
      truncated: answer.truncated,
    };
  } catch (error) {
    if (error instanceof BlockedHostError)
      return { status: null, text: '', error: error.message, retryable: false };
    const e = error as Error;
    const timedOut = e.name === 'AbortError' || e.name === 'TimeoutError';
    return {
      status: null,
      text: '',
      error: timedOut ? `The destination did not answer within ${timeoutMs / 1000} s` : e.message,
      retryable: true,
    };
  }
}
