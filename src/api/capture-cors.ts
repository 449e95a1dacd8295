import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The CORS headers capture answers with: the caller's origin (never `*`, which browsers refuse with
 * credentials), credentials allowed, and for a preflight the methods and whatever headers it asked
 * for (PostHog's capture mirrors them too: old SDKs and proxies send unusual ones). Set before
 * anything can fail, so that error answers carry them as well: without them a browser reports a
 * network error instead of the 4xx, and the SDK cannot read why.
 */
export function setCaptureCors(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  if (!origin) return;
  reply.header('Access-Control-Allow-Origin', origin);
  reply.header('Access-Control-Allow-Credentials', 'true');
  reply.header('Vary', 'Origin');
  if (request.method === 'OPTIONS') {
    reply.header('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
    reply.header(
      'Access-Control-Allow-Headers',
      request.headers['access-control-request-headers'] ?? 'Content-Type, Authorization',
    );
    reply.header('Access-Control-Max-Age', '86400');
  }
}

/** Browser SDKs post from any site with credentials: every answer of the plugin gets capture's CORS. */
export function installCaptureCors(app: FastifyInstance): void {
  // Callback style: an async hook costs a promise and a microtask on every SDK request.
  app.addHook('onRequest', (request, reply, done) => {
    setCaptureCors(request, reply);
    done();
  });
}
