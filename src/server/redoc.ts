import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { PUBLIC } from '../domain/scopes.js';
import { BURROW_LOGO_SVG } from './burrow-logo.js';

/**
 * `/api/schema/redoc/`, as PostHog has it: Redoc's standalone bundle, served from the `redoc`
 * package on this server (no CDN), reading the OpenAPI document at `/api/schema/?format=json`.
 */
const page = (prefix: string) => `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Burrow API (ReDoc)</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" type="image/svg+xml" href="data:image/svg+xml;base64,${Buffer.from(BURROW_LOGO_SVG).toString('base64')}">
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<redoc spec-url="${prefix}?format=json"></redoc>
<script src="${prefix}redoc/redoc.standalone.js"></script>
</body>
</html>
`;

export function registerRedoc(app: FastifyInstance, prefix: string): void {
  const bundlePath = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
  let bundle: Promise<Buffer> | undefined;
  const hidden = { config: { scope: PUBLIC }, schema: { hide: true } };
  app.get(`${prefix}redoc/`, hidden, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(page(prefix)),
  );
  app.get(`${prefix}redoc/redoc.standalone.js`, hidden, async (_request, reply) => {
    bundle ??= readFile(bundlePath);
    return reply
      .type('application/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=86400')
      .send(await bundle);
  });
}
