import type { FastifyReply } from 'fastify';

/**
 * Aborts when the HTTP client goes away before the answer is sent, so a blocking calculation stops
 * and gives back its executor slot. Read from the response: the request's own 'close' fires as soon
 * as its body has been read, long before the client could leave, and so never saw a client go.
 */
export function abortOnClose(reply: FastifyReply): AbortSignal {
  const abort = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abort.abort(new DOMException('The client went away', 'AbortError'));
  });
  return abort.signal;
}
