import fastJsonStringify from 'fast-json-stringify';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Authenticator } from '../../src/domain/accounts/authenticate.js';
import type { Deps } from '../../src/domain/deps.js';
import { describeScope, type RouteScope, SCOPE_OBJECTS, scope } from '../../src/domain/scopes.js';
import { installAuth } from '../../src/server/auth.js';
import { installErrorHandling } from '../../src/server/errors.js';
import { validatorCompiler } from '../../src/server/validation.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

interface SeenRoute {
  method: string;
  url: string;
  scope: RouteScope | undefined;
  schema: Record<string, unknown> | undefined;
}

// Every route each app registers, as the route contract left it (scope and schema filled in).
const seen = vi.hoisted(() => new Map<object, SeenRoute[]>());

vi.mock('../../src/server/openapi.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/server/openapi.js')>();
  return {
    ...actual,
    installRouteContract(app: FastifyInstance) {
      actual.installRouteContract(app);
      const routes: SeenRoute[] = [];
      seen.set(app, routes);
      // Added after the contract's own hook, so it sees the route as the contract leaves it.
      app.addHook('onRoute', (route: RouteOptions) => {
        for (const method of [route.method].flat()) {
          routes.push({
            method,
            url: route.url,
            scope: route.config?.scope,
            schema: route.schema as Record<string, unknown> | undefined,
          });
        }
      });
    },
  };
});

const { installRouteContract } = await vi.importActual<typeof import('../../src/server/openapi.js')>(
  '../../src/server/openapi.js',
);

const NOT_AUTHENTICATED = {
  type: 'authentication_error',
  code: 'not_authenticated',
  detail: 'Authentication credentials were not provided.',
  attr: null,
};
const OBJECTS = new Set<string>(SCOPE_OBJECTS);
const DOCS = /^\/api\/schema(\/|$)/;

function isRouteScope(value: unknown): value is RouteScope {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Record<string, unknown>;
  if ('kind' in s)
    return ['internal', 'authenticated', 'public'].includes(s.kind as string) && Object.keys(s).length === 1;
  return (
    typeof s.object === 'string' &&
    OBJECTS.has(s.object) &&
    (s.action === 'read' || s.action === 'write') &&
    Object.keys(s).length === 2
  );
}

const isPublic = (s: RouteScope | undefined) => !!s && 'kind' in s && s.kind === 'public';

/**
 * Public by design: logging in and accepting an invite happen before there is any credential; the
 * SDK lists (surveys, early access features) are read by browsers with the public project token,
 * as `/flags` is, and answer only that project's public definitions.
 */
const PUBLIC_BY_DESIGN = [
  'POST /api/login/',
  'GET /api/signup/:invite_id/',
  'HEAD /api/signup/:invite_id/',
  'POST /api/signup/:invite_id/',
  ...['/api/surveys/', '/api/early_access_features/'].flatMap((p) => [
    `GET ${p}`,
    `HEAD ${p}`,
    `OPTIONS ${p}`,
  ]),
];

/**
 * `@current` stands for the caller's organization or project (and a key for itself), never for
 * another object: a route naming one answers 404 for it.
 */
const namesAnObject = (url: string) =>
  url !== '/api/personal_api_keys/:id/' &&
  (url.match(/:[A-Za-z_]+/g) ?? []).some((p) => p !== ':organization_id' && p !== ':project_id');

/** A concrete URL for a route pattern: ids become `@current`, which every id parameter accepts. */
const concrete = (url: string) => url.replace(/:[A-Za-z_]+/g, '@current');

describe(`route table (${backend})`, () => {
  let h: Harness;
  let routes: SeenRoute[];
  let api: SeenRoute[];

  beforeAll(async () => {
    h = await startHarness();
    routes = seen.get(h.app) ?? [];
    api = routes.filter((r) => r.url.startsWith('/api/'));
  });
  afterAll(async () => {
    await h?.close();
  });

  it('saw the routes of the built app', () => {
    expect(seen.size).toBe(1);
    expect(api.length).toBeGreaterThanOrEqual(30);
    expect(routes.map((r) => `${r.method} ${r.url}`)).toEqual(
      expect.arrayContaining(['GET /_health', 'GET /api/users/@me/', 'DELETE /api/personal_api_keys/:id/']),
    );
  });

  // Schemas compile on a route's first request (src/server/validation.ts, serialization.ts), so a
  // schema that cannot compile would only show in production: compile them all here.
  it('has request and response schemas that compile', () => {
    let compiled = 0;
    for (const r of routes) {
      const schema = r.schema ?? {};
      for (const part of ['body', 'querystring', 'params', 'headers'] as const) {
        if (!schema[part]) continue;
        const httpPart = part === 'body' ? 'body' : part;
        const validate = validatorCompiler({ schema: schema[part], httpPart, method: r.method, url: r.url });
        expect(() => validate({}), `${r.method} ${r.url} ${part}`).not.toThrow();
        compiled++;
      }
      for (const [status, response] of Object.entries((schema.response ?? {}) as Record<string, object>)) {
        expect(() => fastJsonStringify(response), `${r.method} ${r.url} ${status}`).not.toThrow();
        compiled++;
      }
    }
    expect(compiled).toBeGreaterThan(100);
  });

  it('gives every /api/ route a valid scope', () => {
    const bad = api.filter((r) => !isRouteScope(r.scope)).map((r) => `${r.method} ${r.url}`);
    expect(bad).toEqual([]);
  });

  it('makes nothing under /api/ public except the API docs, login and signup', () => {
    const open = api
      .filter((r) => isPublic(r.scope) && !DOCS.test(r.url))
      .map((r) => `${r.method} ${r.url}`)
      .filter((route) => !PUBLIC_BY_DESIGN.includes(route));
    expect(open).toEqual([]);
    expect(api.some((r) => DOCS.test(r.url) && isPublic(r.scope))).toBe(true);
  });

  it.each([
    ['GET /api/users/@me/', 'user:read'],
    ['GET /api/organizations/', 'organization:read'],
    ['POST /api/organizations/', 'organization:write'],
    ['GET /api/organizations/:organization_id/', 'organization:read'],
    ['PATCH /api/organizations/:organization_id/', 'organization:write'],
    ['GET /api/organizations/:organization_id/projects/', 'project:read'],
    ['POST /api/organizations/:organization_id/projects/', 'project:write'],
    ['GET /api/projects/', 'project:read'],
    ['GET /api/projects/:project_id/', 'project:read'],
    ['HEAD /api/projects/:project_id/', 'project:read'],
    ['PATCH /api/projects/:project_id/', 'project:write'],
    ['DELETE /api/projects/:project_id/', 'project:write'],
    ['GET /api/environments/:project_id/', 'project:read'],
    ['PATCH /api/environments/:project_id/', 'project:write'],
    ['DELETE /api/environments/:project_id/', 'project:write'],
    ['GET /api/personal_api_keys/', 'internal'],
    ['POST /api/personal_api_keys/', 'internal'],
    ['GET /api/personal_api_keys/:id/', 'authenticated'],
    ['PATCH /api/personal_api_keys/:id/', 'internal'],
    ['POST /api/personal_api_keys/:id/roll/', 'internal'],
    ['DELETE /api/personal_api_keys/:id/', 'internal'],
  ])('%s needs %s', (route, expected) => {
    const found = api.filter((r) => `${r.method} ${r.url}` === route);
    expect(found).toHaveLength(1);
    expect(describeScope(found[0]!.scope!)).toBe(expected);
  });

  it('refuses an anonymous caller on every non-public /api/ route, with or without the trailing slash', async () => {
    const wrong: string[] = [];
    for (const r of api) {
      if (isPublic(r.scope) || r.url.includes('*')) continue;
      const url = concrete(r.url);
      for (const variant of new Set([url, url.replace(/\/$/, ''), url.endsWith('/') ? url : `${url}/`])) {
        const res = await h.app.inject({ method: r.method as 'GET', url: variant });
        const ok =
          res.statusCode === 401 && (r.method === 'HEAD' || res.body === JSON.stringify(NOT_AUTHENTICATED));
        if (!ok) wrong.push(`${r.method} ${variant} -> ${res.statusCode} ${res.body}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('answers every non-public GET /api/ route for the full-access key, with or without the trailing slash', async () => {
    const wrong: string[] = [];
    for (const r of api) {
      if (r.method !== 'GET' || isPublic(r.scope)) continue;
      const url = concrete(r.url);
      for (const variant of [url, url.replace(/\/$/, '')]) {
        const res = await h.request('GET', variant);
        const missing = namesAnObject(r.url) && res.statusCode === 404 && res.json().code === 'not_found';
        // Routes with a required query parameter (draft_sql's `prompt`) say so instead.
        const needsParameter = res.statusCode === 400 && res.json().code === 'required';
        if (res.statusCode !== 200 && !missing && !needsParameter)
          wrong.push(`GET ${variant} -> ${res.statusCode} ${res.body}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('writes the scope, the security scheme and the error responses into every non-public operation', () => {
    const doc = h.app.swagger() as unknown as {
      paths: Record<string, Record<string, Record<string, unknown> & { responses: Record<string, unknown> }>>;
    };
    const wrong: string[] = [];
    for (const r of api) {
      if (isPublic(r.scope) || r.method === 'HEAD') continue;
      const path = r.url.replace(/:([A-Za-z_]+)/g, '{$1}');
      const op = doc.paths[path]?.[r.method.toLowerCase()];
      const expected = describeScope(r.scope!);
      if (
        !op ||
        op['x-required-scope'] !== expected ||
        JSON.stringify(op.security) !== JSON.stringify([{ PersonalAPIKey: [] }]) ||
        !String(op.description).includes(`Required scope: \`${expected}\``) ||
        !['401', '403', '404'].every((status) => status in op.responses)
      ) {
        wrong.push(`${r.method} ${path}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('route contract on a bare Fastify instance', () => {
  const handler = async () => ({ ok: true });

  /** A Fastify app with the real contract and a recorder of what the contract leaves on each route. */
  function bare() {
    const app = Fastify({ logger: false });
    installRouteContract(app);
    const recorded: RouteOptions[] = [];
    app.addHook('onRoute', (route) => {
      recorded.push(route);
    });
    return { app, recorded };
  }

  it('throws when a route under /api/ declares no scope', async () => {
    const { app } = bare();
    expect(() => app.get('/api/unscoped/', handler)).toThrow('Route GET /api/unscoped/ declares no scope');
    expect(() => app.route({ method: ['GET', 'POST'], url: '/api/both/', handler })).toThrow(
      'Route GET,POST /api/both/ declares no scope',
    );
    expect(() => app.post('/api/empty/', { config: {} }, handler)).toThrow(
      'Route POST /api/empty/ declares no scope',
    );
    await app.close();
  });

  it('fails app.ready() when a plugin registers such a route', async () => {
    const { app } = bare();
    app.register(async (child) => {
      child.get('/api/fine/', { config: { scope: scope('project', 'read') } }, handler);
      child.delete('/api/things/:id/', handler);
    });
    await expect(app.ready()).rejects.toThrow('Route DELETE /api/things/:id/ declares no scope');
    await app.close().catch(() => {});
  });

  it('accepts scoped /api/ routes and unscoped routes elsewhere, and fills in the schema', async () => {
    const { app, recorded } = bare();
    app.get('/api/things/', { config: { scope: scope('project', 'read') } }, handler);
    app.get('/metrics', handler);
    app.get('/api/schema/extra', handler);
    await app.ready();

    const things = recorded.find((r) => r.url === '/api/things/' && r.method === 'GET');
    const schema = things?.schema as Record<string, unknown>;
    expect(schema['x-required-scope']).toBe('project:read');
    expect(schema.security).toEqual([{ PersonalAPIKey: [] }]);
    expect(schema.description).toBe('Required scope: `project:read`');
    expect(Object.keys(schema.response as object).sort()).toEqual([
      '400',
      '401',
      '403',
      '404',
      '413',
      '415',
      '500',
    ]);

    expect(recorded.find((r) => r.url === '/metrics')?.config?.scope).toBeUndefined();
    expect(recorded.find((r) => r.url === '/api/schema/extra')?.config?.scope).toEqual({ kind: 'public' });
    expect((await app.inject({ method: 'GET', url: '/api/things/' })).json()).toEqual({ ok: true });
    await app.close();
  });
});

describe('auth hook without the contract (defence in depth)', () => {
  it('refuses every request to an unscoped /api/ route and leaves other routes alone', async () => {
    const app = Fastify({ logger: false });
    const authenticator: Authenticator = {
      authenticate: () => Promise.reject(new Error('must not authenticate')),
      invalidate: () => {},
      peek: () => undefined,
    };
    installErrorHandling(app, { bodyLimit: 1024, ignoreTrailingSlash: true });
    installAuth(app, {} as Deps, authenticator);
    app.get('/api/forgotten/', async () => ({ leaked: true }));
    app.get('/outside', async () => ({ ok: true }));
    await app.ready();

    for (const headers of [{}, { authorization: 'Bearer phx_anything' }]) {
      const res = await app.inject({ method: 'GET', url: '/api/forgotten/', headers });
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 403,
        body: {
          type: 'authentication_error',
          code: 'permission_denied',
          detail: 'You do not have permission to perform this action.',
          attr: null,
        },
      });
    }
    expect((await app.inject({ method: 'GET', url: '/outside' })).json()).toEqual({ ok: true });
    expect((await app.inject({ method: 'GET', url: '/api/nowhere/' })).statusCode).toBe(404);
    await app.close();
  });
});
