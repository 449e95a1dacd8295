import type { FastifyInstance } from 'fastify';

/**
 * Browser SDKs post from any site with credentials, so capture answers with the caller's origin
 * (never `*`, which browsers refuse with credentials) and handles preflights.
 */
export function installCaptureCors(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
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
  });
}
