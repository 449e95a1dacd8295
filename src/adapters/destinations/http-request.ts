import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { type NetworkPolicy, pinnedLookup, pinsConnections } from '../network.js';

/** Idle kept-alive connections close after this long (servers commonly keep them 5 s). */
const IDLE_MS = 4000;

/**
 * Kept-alive connections per network policy: realtime destinations send thousands of small
 * requests a second to a few hosts, and a TCP (and TLS) handshake per request cost more than the
 * request. Pooling keeps the guard: a pooled socket was opened through the policy's pinned
 * lookup, so it is connected to an address that was checked when it was opened, and the policy
 * itself never changes while the process runs.
 */
const pools = new WeakMap<NetworkPolicy, { http: HttpAgent; https: HttpsAgent }>();
function poolOf(policy: NetworkPolicy) {
  let pool = pools.get(policy);
  if (!pool) {
    const options = {
      keepAlive: true,
      maxSockets: 64,
      maxFreeSockets: 64,
      timeout: IDLE_MS,
      scheduling: 'lifo' as const,
      ...(pinsConnections(policy) && { lookup: pinnedLookup(policy) as never }),
    };
    pool = { http: new HttpAgent(options), https: new HttpsAgent(options) };
    pools.set(policy, pool);
  }
  return pool;
}

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
    /** Reuse connections to the same host (realtime destinations); else one connection per request. */
    keepAlive?: boolean;
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
        // Batch exports open a fresh connection per request (they send few, large ones).
        agent: init.keepAlive ? poolOf(policy)[url.protocol === 'https:' ? 'https' : 'http'] : false,
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
