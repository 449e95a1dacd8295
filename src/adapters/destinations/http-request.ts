import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type NetworkPolicy, pinnedLookup, pinsConnections } from '../network.js';

export interface Answer {
  status: number;
  retryAfter: string | null;
  text: string;
  /** The answer was longer than `maxBytes`: the rest was not read (the connection was dropped). */
  truncated: boolean;
}

/**
 * One request to a destination over node:http(s), whose sockets resolve through the network
 * policy's pinned lookup: the address checked is the address connected to. Redirects are not
 * followed (a 3xx is returned as is). TLS still verifies the certificate against the host name.
 */
export function destinationRequest(
  policy: NetworkPolicy,
  url: URL,
  init: {
    method: string;
    headers?: Record<string, string>;
    body?: Buffer | string;
    signal?: AbortSignal;
    /** Read at most this many bytes of the answer, then drop the connection. */
    maxBytes?: number;
  },
): Promise<Answer> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Answer>((resolve, reject) => {
    const req = send(
      url,
      {
        method: init.method,
        headers: init.headers,
        ...(init.signal && { signal: init.signal }),
        ...(pinsConnections(policy) && { lookup: pinnedLookup(policy) as never }),
        // A fresh connection per request: a pooled socket may predate a policy check.
        agent: false,
        timeout: 60_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const answer = (truncated: boolean): Answer => ({
          status: res.statusCode ?? 0,
          retryAfter: (res.headers['retry-after'] as string | undefined) ?? null,
          text: Buffer.concat(chunks).toString('utf8'),
          truncated,
        });
        res.on('data', (c: Buffer) => {
          // Only the start of an answer is ever shown.
          if (size < 64 * 1024) chunks.push(c);
          size += c.length;
          if (init.maxBytes !== undefined && size > init.maxBytes) {
            // A destination answering without end must not hold the worker or its memory.
            resolve(answer(true));
            res.destroy();
          }
        });
        res.on('end', () => resolve(answer(false)));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('The destination did not answer in time')));
    req.on('error', reject);
    req.end(init.body);
  });
}
