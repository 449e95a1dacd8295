import type { FastifyInstance } from 'fastify';

/**
 * Browser SDKs post from any site with credentials, so capture answers with the caller's origin
 * (never `*`, which browsers refuse with credentials) and handles preflights.
 */
export function installCaptureCors(app: FastifyInstance): void {
  // Callback style: an async hook costs a promise and a microtask on every SDK request.
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if (!origin) return done();
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
    done();
  });
}
