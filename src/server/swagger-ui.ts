import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PUBLIC } from '../domain/scopes.js';
import { BURROW_LOGO_SVG } from './burrow-logo.js';

/** Response headers of the inner app not passed on (the outer reply sets its own framing). */
const HOP_HEADERS = new Set(['connection', 'content-length', 'date', 'keep-alive', 'transfer-encoding']);

/**
 * Swagger UI under `prefix`, loaded on its first request rather than at start: registering
 * @fastify/swagger-ui (its module and its static routes) was the largest single piece of a cold
 * start (docs/benchmarks-history.md, "Issue 30: the `npm start` path"). The page is served by a small Fastify app of its own,
 * built once from this server's OpenAPI document, and requests are passed to it by `inject`.
 */
export function registerLazySwaggerUi(app: FastifyInstance, prefix: string): void {
  let inner: Promise<FastifyInstance> | undefined;
  const load = async () => {
    const [{ default: Fastify }, { default: swagger }, { default: swaggerUi }] = await Promise.all([
      import('fastify'),
      import('@fastify/swagger'),
      import('@fastify/swagger-ui'),
    ]);
    const ui = Fastify({ logger: false });
    await ui.register(swagger, { mode: 'static', specification: { document: app.swagger() as never } });
    await ui.register(swaggerUi, {
      routePrefix: prefix,
      // Burrow's own logo in place of the library's (the page is Burrow's API, not Fastify's).
      logo: { type: 'image/svg+xml', content: Buffer.from(BURROW_LOGO_SVG), href: `${prefix}/` },
    });
    await ui.ready();
    return ui;
  };
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    inner ??= load().catch((error) => {
      inner = undefined;
      throw error;
    });
    const ui = await inner;
    const res = await ui.inject({
      method: request.method as 'GET',
      url: request.url,
      headers: { accept: request.headers.accept ?? '*/*' },
    });
    for (const [name, value] of Object.entries(res.headers))
      if (!HOP_HEADERS.has(name) && value !== undefined) reply.header(name, value);
    return reply.code(res.statusCode).send(res.rawPayload);
  };
  const options = { config: { scope: PUBLIC }, schema: { hide: true }, logLevel: 'warn' as const };
  app.get(prefix, options, handler);
  app.get(`${prefix}/*`, options, handler);
}
