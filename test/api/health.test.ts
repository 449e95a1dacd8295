import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

describe(`health and schema (${backend})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  /** GET that follows same-origin redirects the way a browser would, at most five times. */
  async function follow(url: string): Promise<{ res: LightMyRequestResponse; url: string }> {
    let current = url;
    for (let hop = 0; hop < 5; hop++) {
      const res = await h.request('GET', current, { key: null });
      if (res.statusCode < 300 || res.statusCode >= 400) return { res, url: current };
      const location = String(res.headers.location);
      current = new URL(location, `http://localhost${current}`).pathname;
    }
    throw new Error(`too many redirects from ${url}`);
  }

  it('answers /_health without credentials', async () => {
    const res = await h.request('GET', '/_health', { key: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('answers /_readyz with every store checked', async () => {
    const res = await h.request('GET', '/_readyz', { key: null });
    expect(res.statusCode).toBe(200);
    const checks = { metadata: 'ok', events: 'ok', ...(process.env.REDIS_URL ? { redis: 'ok' } : {}) };
    expect(res.json()).toEqual({ status: 'ok', checks });
  });

  it('answers /_readyz with 503 and names the store that fails', async () => {
    const events = { ...h.stores.events, ping: () => Promise.reject(new Error('secret connection string')) };
    // A second app on the harness's stores: the journal directory is the first app's (one per node).
    const app = await buildApp({
      config: { ...h.config, captureJournal: false },
      meta: h.stores.meta,
      events,
    });
    try {
      const res = await app.inject({ method: 'GET', url: '/_readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'error', checks: { metadata: 'ok', events: 'error' } });
      const live = await app.inject({ method: 'GET', url: '/_health' });
      expect(live.statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('ignores a bad key on public routes', async () => {
    const res = await h.request('GET', '/_health', { key: 'phx_not_a_real_key_at_all_000000' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('serves the OpenAPI 3.1 document at /api/schema/', async () => {
    const res = await h.request('GET', '/api/schema/', { key: null });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Burrow API', version: expect.any(String) });
    expect(doc.components.securitySchemes.PersonalAPIKey).toEqual({
      type: 'http',
      scheme: 'bearer',
      description: 'A personal API key (phx_...)',
    });
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/users/@me/',
        '/api/organizations/',
        '/api/organizations/{organization_id}/',
        '/api/organizations/{organization_id}/projects/',
        '/api/projects/',
        '/api/projects/{project_id}/',
        '/api/environments/{project_id}/',
        '/api/personal_api_keys/',
      ]),
    );
    expect(doc.paths['/api/users/@me/'].get['x-required-scope']).toBe('user:read');
    expect(doc.paths['/api/projects/{project_id}/'].patch['x-required-scope']).toBe('project:write');
    expect(doc.paths['/api/organizations/'].post['x-required-scope']).toBe('organization:write');
    expect(doc.paths['/api/schema/']).toBeUndefined();
  });

  it('declares a scope, the key scheme and the error responses on every /api/ operation', async () => {
    const doc = (await h.request('GET', '/api/schema/', { key: null })).json();
    let operations = 0;
    for (const [path, item] of Object.entries<Record<string, Record<string, unknown>>>(doc.paths)) {
      if (!path.startsWith('/api/')) continue;
      for (const [method, op] of Object.entries(item)) {
        if (!METHODS.includes(method)) continue;
        // Signing up through an invite and logging in are public by design (before any key exists);
        // the SDK lists are read with the public project token (`?token=`), as `/flags` is.
        if (path === '/api/login/' || path.startsWith('/api/signup/')) continue;
        if (path === '/api/surveys/' || path === '/api/early_access_features/') continue;
        operations++;
        const where = `${method.toUpperCase()} ${path}`;
        expect(op['x-required-scope'], where).toMatch(/^([a-z_]+:(read|write)|internal|authenticated)$/);
        expect(op.security, where).toEqual([{ PersonalAPIKey: [] }]);
        expect(String(op.description), where).toContain(`Required scope: \`${op['x-required-scope']}\``);
        const responses = op.responses as Record<string, unknown>;
        for (const status of ['400', '401', '403', '404', '500']) {
          expect(responses[status], `${where} ${status}`).toBeDefined();
        }
      }
    }
    expect(operations).toBeGreaterThanOrEqual(20);
  });

  it('leaves health routes without a scope', async () => {
    const doc = (await h.request('GET', '/api/schema/', { key: null })).json();
    expect(doc.paths['/_health'].get['x-required-scope']).toBeUndefined();
    expect(doc.paths['/_health'].get.security).toBeUndefined();
  });

  it('serves the same document as YAML with ?format=yaml', async () => {
    const res = await h.request('GET', '/api/schema/?format=yaml', { key: null });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/yaml/);
    expect(res.body).toMatch(/^openapi: 3\.1\.0\n/);
    expect(res.body).toContain('\n  /api/users/@me/:\n');
    expect(res.body).toContain('PersonalAPIKey:');
    expect(res.body).toContain('x-required-scope: user:read');
    expect(() => JSON.parse(res.body)).toThrow();
    const json = await h.request('GET', '/api/schema/?format=json', { key: null });
    expect(json.json().openapi).toBe('3.1.0');
  });

  it('serves Swagger UI as HTML', async () => {
    for (const start of ['/api/schema/swagger-ui/', '/api/schema/swagger-ui']) {
      const { res } = await follow(start);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('<title>Swagger UI</title>');
    }
  });

  it("shows Burrow's logo in Swagger UI, not the library's", async () => {
    const res = await h.request('GET', '/api/schema/swagger-ui/static/swagger-initializer.js', { key: null });
    expect(res.statusCode).toBe(200);
    const data = /img\.src = 'data:image\/svg\+xml;base64,([^']+)'/.exec(res.body);
    expect(data).not.toBeNull();
    const svg = Buffer.from(data![1]!, 'base64').toString('utf8');
    expect(svg).toContain('<title>Burrow</title>');
    expect(svg).not.toMatch(/fastify/i);
  });

  it('serves ReDoc at /api/schema/redoc/ from this server, reading the OpenAPI document', async () => {
    const res = await h.request('GET', '/api/schema/redoc/', { key: null });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<redoc spec-url="/api/schema/?format=json"></redoc>');
    expect(res.body).not.toMatch(/https?:\/\//);
    const script = /<script src="([^"]+)"/.exec(res.body)![1]!;
    const js = await h.request('GET', script, { key: null });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/^application\/javascript/);
    expect(js.body.length).toBeGreaterThan(500_000);
    expect(js.body).toContain('Redoc');
    const spec = await h.request('GET', '/api/schema/?format=json', { key: null });
    expect(spec.json().openapi).toBe('3.1.0');
    expect((await h.request('GET', '/api/schema/redoc', { key: null })).statusCode).toBe(200);
  });

  it('serves the document Swagger UI loads', async () => {
    const res = await h.request('GET', '/api/schema/swagger-ui/json', { key: null });
    expect(res.statusCode).toBe(200);
    expect(res.json().openapi).toBe('3.1.0');
    expect(res.json().paths['/api/users/@me/']).toBeDefined();
  });
});
