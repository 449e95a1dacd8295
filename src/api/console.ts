import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PUBLIC } from '../domain/scopes.js';
import type { NotFoundPage } from '../server/errors.js';
import type { ApiPlugin } from './context.js';

/**
 * The web console: a single-page app built by Vite into dist/web (web/ holds its source), served
 * by this process. Its pages are client-side routes, so each one answers index.html; everything
 * else it needs is under /assets/ with content-hashed names, cached for a year.
 */
export const CONSOLE_PAGES = [
  '/',
  '/login',
  ...[
    'signup',
    // A dashboard's share link (its data is the public `/shared/{token}.json`).
    'share',
    'sql',
    'insights',
    'dashboards',
    'recordings',
    'events',
    'llm',
    'people',
    'cohorts',
    'feature_flags',
    'experiments',
    'surveys',
    'early_access_features',
    'destinations',
    'errors',
    'web',
    'settings',
  ].flatMap((p) => [`/${p}`, `/${p}/*`]),
];

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

/**
 * Scripts only from this origin; styles also inline (CodeMirror and uPlot write style elements);
 * the API is the only place the page talks to; no framing (clickjacking) and no plugins.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  // A replay rebuilds the recorded page, whose images and fonts live on the recorded site.
  "img-src 'self' data: blob: https: http:",
  "connect-src 'self'",
  "font-src 'self' data: https: http:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

interface Asset {
  body: Buffer;
  gzip?: Buffer;
  type: string;
}

/** dist/web beside the package root, from src/ (tests, tsx) and from the dist/ bundle alike. */
export function consoleDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'dist', 'web');
}

function loadAssets(root: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!existsSync(join(root, 'index.html'))) return assets;
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const url = `/${relative(root, path).split(sep).join('/')}`;
        assets.set(url, {
          body: readFileSync(path),
          type: TYPES[extname(name)] ?? 'application/octet-stream',
        });
      }
    }
  };
  walk(root);
  return assets;
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Burrow</title>
<p>The Burrow console has not been built. Run <code>npm run build</code> and restart; the API works without it.</p>`;

export const consoleRoutes: ApiPlugin<{ dir?: string; notFoundPage?: NotFoundPage }> = async (
  app,
  { dir, notFoundPage },
) => {
  // Read once: the whole console is a few hundred kilobytes, and a request never touches the disk,
  // so no path from a request is ever joined to a file name.
  const assets = loadAssets(dir ?? consoleDir());

  const send = (request: FastifyRequest, reply: FastifyReply, asset: Asset, cache: string) => {
    reply
      .header('content-type', asset.type)
      .header('cache-control', cache)
      .header('x-content-type-options', 'nosniff');
    const accepts = String(request.headers['accept-encoding'] ?? '');
    if (asset.body.length > 1024 && /\bgzip\b/.test(accepts)) {
      asset.gzip ??= gzipSync(asset.body);
      reply.header('content-encoding', 'gzip').header('vary', 'accept-encoding');
      return reply.send(asset.gzip);
    }
    return reply.send(asset.body);
  };

  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    const index = assets.get('/index.html');
    // The status is the caller's: 200 for the console's routes, 404 for an unknown page, whose
    // HTML then routes to the console's Not found (it signs in first, as any page does).
    reply
      .header('content-security-policy', CONSOLE_CSP)
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'same-origin');
    if (!index) return reply.code(503).type('text/html; charset=utf-8').send(NOT_BUILT);
    return send(request, reply, index, 'no-cache');
  };

  const hidden = { hide: true } as Record<string, unknown>;
  for (const url of CONSOLE_PAGES) app.get(url, { config: { scope: PUBLIC }, schema: hidden }, page);
  if (notFoundPage && assets.has('/index.html')) notFoundPage.send = page;

  for (const [url, asset] of assets) {
    if (url === '/index.html') continue;
    const immutable = url.startsWith('/assets/');
    app.get(url, { config: { scope: PUBLIC }, schema: hidden }, (request, reply) =>
      send(request, reply, asset, immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=3600'),
    );
  }
};
