import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC } from '../../src/domain/scopes.js';
import { type App, buildApp } from '../../src/server/app.js';
import { NOT_FOUND } from '../helpers/bodies.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const NOT_AUTHENTICATED = {
  type: 'authentication_error',
  code: 'not_authenticated',
  detail: 'Authentication credentials were not provided.',
  attr: null,
};
const SERVER_ERROR = { type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null };
const JSON_TYPE = { 'content-type': 'application/json' };

const invalid = (detail: string, attr: string | null, code = 'invalid_input') => ({
  type: 'validation_error',
  code,
  detail,
  attr,
});

function expectError(res: LightMyRequestResponse, status: number, body: unknown) {
  expect({ status: res.statusCode, body: res.json() }).toEqual({ status, body });
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
}

describe(`errors (${backend})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  describe('routing', () => {
    it('answers an unknown route with the canonical 404, with or without credentials', async () => {
      expectError(await h.request('GET', '/api/does-not-exist/'), 404, NOT_FOUND);
      expectError(await h.request('GET', '/api/does-not-exist/', { key: null }), 404, NOT_FOUND);
      expectError(await h.request('POST', '/nowhere', { body: { a: 1 } }), 404, NOT_FOUND);
    });

    it('answers a known path under another method with 405 and an Allow header', async () => {
      const res = await h.request('DELETE', '/api/users/@me/');
      expectError(res, 405, {
        type: 'invalid_request',
        code: 'method_not_allowed',
        detail: 'Method "DELETE" not allowed.',
        attr: null,
      });
      expect(res.headers.allow).toBe('GET, HEAD, PATCH');
    });

    it('gives 405 without the trailing slash too, and lists every allowed method', async () => {
      const res = await h.request('PUT', '/api/organizations');
      expectError(res, 405, {
        type: 'invalid_request',
        code: 'method_not_allowed',
        detail: 'Method "PUT" not allowed.',
        attr: null,
      });
      expect(res.headers.allow).toBe('GET, HEAD, POST');

      const project = await h.request('POST', `/api/projects/${h.boot.project_id}/`, { body: {} });
      expect(project.statusCode).toBe(405);
      expect(String(project.headers.allow).split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
    });

    it('does not answer 405 for a path that matches no route', async () => {
      const res = await h.request('DELETE', '/api/users/@me/extra/');
      expectError(res, 404, NOT_FOUND);
      expect(res.headers.allow).toBeUndefined();
    });
  });

  describe('bodies', () => {
    it('answers malformed JSON with 400 parse_error', async () => {
      const res = await h.request('POST', '/api/organizations/', { body: '{"name": ', headers: JSON_TYPE });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ type: 'invalid_request', code: 'parse_error', attr: null });
      expect(res.json().detail).toMatch(/^JSON parse error - /);
    });

    it('authenticates before parsing, so an anonymous malformed body is a 401', async () => {
      const res = await h.request('POST', '/api/organizations/', {
        key: null,
        body: '{bad',
        headers: JSON_TYPE,
      });
      expectError(res, 401, NOT_AUTHENTICATED);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="api"');
    });

    it.each([
      ['text/plain', 'name=x'],
      ['application/xml', '<organization><name>x</name></organization>'],
      ['application/x-www-form-urlencoded', 'name=x'],
      ['application/jsonx', '{"name":"x"}'],
    ])('refuses %s with 415', async (type, body) => {
      const res = await h.request('POST', '/api/organizations/', { body, headers: { 'content-type': type } });
      expectError(res, 415, {
        type: 'invalid_request',
        code: 'unsupported_media_type',
        detail: `Unsupported media type "${type}" in request.`,
        attr: null,
      });
    });

    it('accepts JSON with a charset and +json types', async () => {
      const plain = await h.request('POST', '/api/organizations/', {
        body: JSON.stringify({ name: 'Charset org' }),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      expect(plain.statusCode).toBe(201);
      expect(plain.json().name).toBe('Charset org');
      const vendor = await h.request('POST', '/api/organizations/', {
        body: JSON.stringify({ name: 'Vendor org' }),
        headers: { 'content-type': 'application/vnd.api+json' },
      });
      expect(vendor.statusCode).toBe(201);
      expect(vendor.json().name).toBe('Vendor org');
      const upper = await h.request('POST', '/api/organizations/', {
        body: JSON.stringify({ name: 'Upper org' }),
        headers: { 'content-type': 'Application/JSON;charset=UTF-8' },
      });
      expect(upper.statusCode).toBe(201);
      expect(upper.json().name).toBe('Upper org');
    });

    it('treats an empty JSON body as {} (so a required field is reported)', async () => {
      const res = await h.request('POST', '/api/organizations/', { body: '', headers: JSON_TYPE });
      expectError(res, 400, invalid('This field is required.', 'name', 'required'));
    });

    it('treats an empty PATCH body as no change', async () => {
      const before = (await h.request('GET', `/api/projects/${h.boot.project_id}/`)).json();
      const res = await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, {
        body: '',
        headers: JSON_TYPE,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ name: before.name, timezone: before.timezone });
    });

    it.each([
      ['a list', '[{"name":"x"}]', 'list'],
      ['a string', '"x"', 'str'],
      ['a number', '5', 'int'],
      ['a boolean', 'true', 'bool'],
      ['null', 'null', 'NoneType'],
    ])('refuses a body that is %s', async (_label, body, name) => {
      const res = await h.request('POST', '/api/organizations/', { body, headers: JSON_TYPE });
      expectError(res, 400, invalid(`Invalid data. Expected a dictionary, but got ${name}.`, null));
    });

    it.each([
      ['a top-level __proto__ key', '{"__proto__": {"isAdmin": true}, "name": "x"}'],
      ['a nested __proto__ key', '{"name": "x", "extra": {"__proto__": {"polluted": 1}}}'],
      ['constructor.prototype', '{"constructor": {"prototype": {"polluted": 1}}, "name": "x"}'],
    ])('refuses %s with 400', async (_label, body) => {
      const res = await h.request('POST', '/api/organizations/', { body, headers: JSON_TYPE });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        type: 'invalid_request',
        code: 'parse_error',
        detail: 'JSON parse error - Object contains forbidden prototype property',
        attr: null,
      });
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  describe('validation', () => {
    it('reports a missing required field', async () => {
      const res = await h.request('POST', '/api/organizations/', { body: {} });
      expectError(res, 400, invalid('This field is required.', 'name', 'required'));
    });

    it('reports a wrong JSON type', async () => {
      const res = await h.request('POST', '/api/organizations/', { body: { name: 5 } });
      expectError(res, 400, invalid('Not a valid string.', 'name'));
      const bool = await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, {
        body: { anonymize_ips: 'maybe' },
      });
      expectError(bool, 400, invalid('Must be a valid boolean.', 'anonymize_ips'));
      const int = await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, {
        body: { week_start_day: '1' },
      });
      expect(int.statusCode).toBe(400);
      expect(int.json()).toMatchObject({ type: 'validation_error', attr: 'week_start_day' });
    });

    it('reports null for a non-nullable field', async () => {
      const res = await h.request('POST', '/api/organizations/', { body: { name: null } });
      expectError(res, 400, invalid('This field may not be null.', 'name', 'null'));
    });

    it.each(['', '   '])('reports a blank name (%j)', async (name) => {
      const res = await h.request('POST', '/api/organizations/', { body: { name } });
      expectError(res, 400, invalid('This field may not be blank.', 'name', 'blank'));
    });

    it('reports a name that is too long, and accepts one at the limit', async () => {
      const res = await h.request('POST', '/api/organizations/', { body: { name: 'x'.repeat(65) } });
      expectError(
        res,
        400,
        invalid('Ensure this field has no more than 64 characters.', 'name', 'max_length'),
      );
      const ok = await h.request('POST', '/api/organizations/', { body: { name: 'y'.repeat(64) } });
      expect(ok.statusCode).toBe(201);
      const project = await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, {
        body: { name: 'z'.repeat(201) },
      });
      expectError(
        project,
        400,
        invalid('Ensure this field has no more than 200 characters.', 'name', 'max_length'),
      );
    });

    it('reports an invalid timezone as invalid_choice', async () => {
      const res = await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, {
        body: { timezone: 'Mars/Olympus_Mons' },
      });
      expectError(
        res,
        400,
        invalid(
          '"Mars/Olympus_Mons" is not a valid choice. Use an IANA time zone name, such as UTC, Europe/Paris or America/New_York.',
          'timezone',
          'invalid_choice',
        ),
      );
      const after = await h.request('GET', `/api/projects/${h.boot.project_id}/`);
      expect(after.json().timezone).toBe('UTC');
    });

    it('joins nested attrs with __ for array items', async () => {
      const scopes = await h.request('POST', '/api/personal_api_keys/', {
        body: { label: 'k', scopes: [1] },
      });
      expectError(scopes, 400, invalid('Not a valid string.', 'scopes__0'));
      const second = await h.request('POST', '/api/personal_api_keys/', {
        body: { label: 'k', scopes: ['*', 7] },
      });
      expectError(second, 400, invalid('Not a valid string.', 'scopes__1'));
      const filters = await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, {
        body: { test_account_filters: [{ key: 'email' }, 'oops'] },
      });
      expectError(
        filters,
        400,
        invalid(
          'Expected a dictionary of items but got type "str".',
          'test_account_filters__1',
          'not_a_dict',
        ),
      );
    });

    it('reports a scalar where a list is expected', async () => {
      const res = await h.request('POST', '/api/personal_api_keys/', { body: { label: 'k', scopes: '*' } });
      expectError(res, 400, invalid('Expected a list of items but got type "str".', 'scopes', 'not_a_list'));
    });

    it('ignores unknown body fields where the route does not refuse them', async () => {
      const res = await h.request('POST', `/api/projects/${h.boot.project_id}/annotations/`, {
        body: {
          content: 'Extra fields',
          date_marker: '2024-01-01T00:00:00Z',
          id: 7_777_777,
          unknown: { deep: true },
        },
      });
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(body.content).toBe('Extra fields');
      expect(body.id).not.toBe(7_777_777);
      expect(body).not.toHaveProperty('unknown');
    });

    it('refuses unknown fields by name on organizations and projects, ignoring their read-only ones', async () => {
      const res = await h.request('POST', '/api/organizations/', {
        body: { name: 'Extra fields org', slug: 'forced-slug', id: 'x', unknown: { deep: true } },
      });
      expectError(res, 400, {
        type: 'validation_error',
        code: 'unsupported_field',
        detail: 'This field is not supported.',
        attr: 'unknown',
      });
      const ok = await h.request('POST', '/api/organizations/', {
        body: { name: 'Extra fields org', slug: 'forced-slug', id: 'x' },
      });
      expect(ok.statusCode).toBe(201);
      expect(ok.json().slug).toBe('extra-fields-org');
      expect(ok.json().id).not.toBe('x');
    });

    it('validates query strings too', async () => {
      const res = await h.request('GET', '/api/schema/?format=xml', { key: null });
      expectError(
        res,
        400,
        invalid('"xml" is not a valid choice. Choose one of: json.', 'format', 'invalid_choice'),
      );
    });
  });

  describe('path ids', () => {
    it.each([
      '/api/organizations/not-a-uuid/',
      '/api/organizations/00000000-0000-0000-0000-000000000000/',
      '/api/organizations/not-a-uuid/projects/',
      '/api/projects/abc/',
      '/api/projects/-1/',
      '/api/projects/1.5/',
      '/api/projects/0/',
      '/api/projects/99999999999/',
      '/api/projects/2147483648/',
      '/api/projects/999999/',
      '/api/environments/abc/',
    ])('GET %s is 404', async (url) => {
      expectError(await h.request('GET', url), 404, NOT_FOUND);
    });

    it('is 404 for PATCH and DELETE on invalid ids as well', async () => {
      expectError(await h.request('PATCH', '/api/projects/abc/', { body: { name: 'x' } }), 404, NOT_FOUND);
      expectError(await h.request('DELETE', '/api/environments/1e3/'), 404, NOT_FOUND);
      expectError(
        await h.request('PATCH', '/api/organizations/1234/', { body: { name: 'x' } }),
        404,
        NOT_FOUND,
      );
    });

    it('asks for credentials before looking the id up', async () => {
      expectError(await h.request('GET', '/api/projects/abc/', { key: null }), 401, NOT_AUTHENTICATED);
    });
  });

  describe('server errors', () => {
    let app: App;
    beforeAll(async () => {
      // A second app on the harness's stores: the journal directory is the first app's (one per node).
      app = await buildApp({
        config: { ...h.config, captureJournal: false },
        meta: h.stores.meta,
        events: h.stores.events,
      });
      app.get('/api/boom/', { config: { scope: PUBLIC } }, () => {
        throw new Error('secret SELECT * FROM x /etc/passwd');
      });
      app.get('/api/boom-string/', { config: { scope: PUBLIC } }, () => {
        throw 'secret SELECT * FROM y';
      });
      app.get('/api/boom-async/', { config: { scope: PUBLIC } }, async () => {
        const error = Object.assign(new Error('relation "secret_table" does not exist'), {
          code: '42P01',
          statusCode: 503,
        });
        throw error;
      });
      await app.ready();
    });
    afterAll(async () => {
      await app?.close();
    });

    it.each(['/api/boom/', '/api/boom-string/', '/api/boom-async/'])(
      'answers an unhandled exception in %s with a generic 500',
      async (url) => {
        const res = await app.inject({ method: 'GET', url });
        expectError(res, 500, SERVER_ERROR);
        expect(res.body).not.toMatch(/secret|SELECT|passwd|stack|at /);
      },
    );

    it('still serves ordinary routes on the same app', async () => {
      const res = await app.inject({ method: 'GET', url: '/_health' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok' });
    });
  });
});

describe(`body limit (${backend})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ BODY_LIMIT: '2048' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers a body over BODY_LIMIT with 413', async () => {
    const body = JSON.stringify({ name: 'big', padding: 'x'.repeat(3000) });
    const res = await h.request('POST', '/api/organizations/', { body, headers: JSON_TYPE });
    expectError(res, 413, {
      type: 'invalid_request',
      code: 'request_too_large',
      detail: 'Request body is larger than the limit of 2048 bytes.',
      attr: null,
    });
  });

  it('accepts a body just under the limit', async () => {
    const body = JSON.stringify({ name: 'small', padding: 'x'.repeat(1900) });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(2048);
    const url = `/api/projects/${h.boot.project_id}/annotations/`;
    const res = await h.request('POST', url, { body, headers: JSON_TYPE });
    expect(res.statusCode).toBe(201);
  });

  it('counts bytes, not characters', async () => {
    const body = JSON.stringify({ name: 'multi', padding: 'é'.repeat(1100) });
    expect(body.length).toBeLessThan(2048);
    expect(Buffer.byteLength(body)).toBeGreaterThan(2048);
    const res = await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, { body, headers: JSON_TYPE });
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('request_too_large');
  });
});
