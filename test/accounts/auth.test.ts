import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN, MEMBER, OWNER } from '../../src/domain/organizations/levels.js';
import { denied, NOT_FOUND } from '../helpers/bodies.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const NOT_AUTHENTICATED = {
  type: 'authentication_error',
  code: 'not_authenticated',
  detail: 'Authentication credentials were not provided.',
  attr: null,
};
const INTERNAL_DETAIL = 'This action does not support Personal API Key access';
const SCOPED_PROJECTS_DETAIL = 'API keys with scoped projects are only supported on project-based endpoints.';

const invalidKey = (where: 'Authorization header' | 'query string') => ({
  type: 'authentication_error',
  code: 'authentication_failed',
  detail: `Personal API key found in request ${where} is invalid.`,
  attr: null,
});
const missing = (scope: string) => denied(`API key missing required scope '${scope}'`);

function expectError(res: LightMyRequestResponse, status: number, body: object) {
  expect({ status: res.statusCode, body: res.json() }).toEqual({ status, body });
}

function expectOk(res: LightMyRequestResponse, status = 200) {
  expect({ status: res.statusCode, body: res.statusCode === status ? null : res.body }).toEqual({
    status,
    body: null,
  });
}

describe(`authentication and authorization (${backend})`, () => {
  let h: Harness;
  let orgId: string;
  let projectId: number;

  beforeAll(async () => {
    h = await startHarness();
    orgId = h.boot.organization_id;
    projectId = h.boot.project_id;
  });
  afterAll(async () => {
    await h?.close();
  });

  /** Mints a key through the API with `ownerKey` (a `*` key) and returns its id and value. */
  async function mint(ownerKey: string, body: Record<string, unknown> = {}) {
    const res = await h.request('POST', '/api/personal_api_keys/', {
      key: ownerKey,
      body: { label: 'minted', scopes: ['*'], ...body },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; value: string };
  }

  /** A member of the bootstrap organization whose key carries `scopes`. */
  const memberWith = async (scopes: string[], level = MEMBER) =>
    (await h.user({ organizationId: orgId, level, key: { scopes } })).key;

  describe('credentials', () => {
    it.each([
      ['GET', '/api/users/@me/'],
      ['GET', '/api/organizations/'],
      ['GET', '/api/projects/@current/'],
      ['PATCH', '/api/projects/@current/'],
      ['GET', '/api/personal_api_keys/'],
      ['POST', '/api/personal_api_keys/'],
    ])('%s %s without credentials is 401 not_authenticated with a Bearer challenge', async (method, url) => {
      const res = await h.request(method, url, { key: null });
      expectError(res, 401, NOT_AUTHENTICATED);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    });

    it('answers 401 before reading the body, so a broken body from an anonymous caller is not a 400', async () => {
      const res = await h.app.inject({
        method: 'POST',
        url: '/api/organizations/',
        headers: { 'content-type': 'application/json' },
        payload: '{not json',
      });
      expectError(res, 401, NOT_AUTHENTICATED);
    });

    it.each([
      ['a Basic header', `Basic ${Buffer.from('user:pass').toString('base64')}`],
      ['an empty Bearer header', 'Bearer '],
      ['a Bearer header with two tokens', 'Bearer one two'],
      ['a secret-key token (phs_)', 'Bearer phs_notapersonalkey'],
      ['an OAuth token (pha_)', 'Bearer pha_notapersonalkey'],
    ])('treats %s as no credentials', async (_name, authorization) => {
      const res = await h.request('GET', '/api/users/@me/', { key: null, headers: { authorization } });
      expectError(res, 401, NOT_AUTHENTICATED);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    });

    it('refuses an unknown key with 401 authentication_failed', async () => {
      const res = await h.request('GET', '/api/users/@me/', { key: 'phx_doesnotexist' });
      expectError(res, 401, invalidKey('Authorization header'));
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    });

    it('refuses a key that differs from a real one in its last character', async () => {
      const last = h.key.slice(-1);
      const tampered = h.key.slice(0, -1) + (last === 'a' ? 'b' : 'a');
      expectError(
        await h.request('GET', '/api/users/@me/', { key: tampered }),
        401,
        invalidKey('Authorization header'),
      );
    });

    it('accepts the key in ?personal_api_key=', async () => {
      const res = await h.request('GET', `/api/users/@me/?personal_api_key=${h.key}`, { key: null });
      expectOk(res);
      expect(res.json().email).toBe(h.boot.user_email);
    });

    it('says "query string" for a bad key in ?personal_api_key=', async () => {
      const res = await h.request('GET', '/api/users/@me/?personal_api_key=phx_nope', { key: null });
      expectError(res, 401, invalidKey('query string'));
    });

    it('prefers the Authorization header to the query string', async () => {
      expectOk(await h.request('GET', '/api/users/@me/?personal_api_key=phx_nope'));
      const res = await h.request('GET', `/api/users/@me/?personal_api_key=${h.key}`, { key: 'phx_nope' });
      expectError(res, 401, invalidKey('Authorization header'));
    });

    it.each([
      ['lowercase bearer', (k: string) => `bearer ${k}`],
      ['uppercase BEARER', (k: string) => `BEARER ${k}`],
      ['extra whitespace', (k: string) => `  Bearer   ${k}  `],
    ])('accepts %s', async (_name, header) => {
      const res = await h.request('GET', '/api/users/@me/', {
        key: null,
        headers: { authorization: header(h.key) },
      });
      expectOk(res);
    });

    it('refuses the key of a deactivated user with 401', async () => {
      const { user, key } = await h.user({ organizationId: orgId });
      await h.stores.meta.db
        .updateTable('users')
        .set({ is_active: false })
        .where('id', '=', user.id)
        .execute();
      expectError(
        await h.request('GET', '/api/users/@me/', { key }),
        401,
        invalidKey('Authorization header'),
      );
    });
  });

  describe('scopes', () => {
    it("refuses a key without the route's scope, naming the scope", async () => {
      const key = await memberWith(['organization:read']);
      expectError(
        await h.request('GET', `/api/projects/${projectId}/`, { key }),
        403,
        missing('project:read'),
      );
      expectError(
        await h.request('GET', `/api/environments/${projectId}/`, { key }),
        403,
        missing('project:read'),
      );
      expectError(await h.request('GET', '/api/users/@me/', { key }), 403, missing('user:read'));
      expectOk(await h.request('GET', `/api/organizations/${orgId}/`, { key }));
    });

    it('read does not imply write', async () => {
      const key = await memberWith(['project:read', 'organization:read']);
      expectOk(await h.request('GET', `/api/projects/${projectId}/`, { key }));
      expectOk(await h.request('GET', `/api/organizations/${orgId}/projects/`, { key }));
      expectError(
        await h.request('PATCH', `/api/projects/${projectId}/`, { key, body: { anonymize_ips: false } }),
        403,
        missing('project:write'),
      );
      expectError(
        await h.request('POST', `/api/organizations/${orgId}/projects/`, { key, body: { name: 'x' } }),
        403,
        missing('project:write'),
      );
      expectError(
        await h.request('PATCH', `/api/organizations/${orgId}/`, { key, body: { name: 'x' } }),
        403,
        missing('organization:write'),
      );
      expectError(
        await h.request('POST', '/api/organizations/', { key, body: { name: 'x' } }),
        403,
        missing('organization:write'),
      );
    });

    it('write implies read, for the same object only', async () => {
      const key = await memberWith(['project:write']);
      expectOk(await h.request('GET', `/api/projects/${projectId}/`, { key }));
      expectOk(await h.request('GET', '/api/projects/', { key }));
      const res = await h.request('PATCH', `/api/projects/${projectId}/`, {
        key,
        body: { anonymize_ips: false },
      });
      expectOk(res);
      expect(res.json().id).toBe(projectId);
      expectError(
        await h.request('GET', `/api/organizations/${orgId}/`, { key }),
        403,
        missing('organization:read'),
      );
    });

    it('checks the scope before the request body', async () => {
      const key = await memberWith(['project:read']);
      const res = await h.request('PATCH', `/api/projects/${projectId}/`, { key, body: { name: 12 } });
      expectError(res, 403, missing('project:write'));
    });

    it('lets a key with several scopes use each of them', async () => {
      const key = await memberWith(['user:read', 'project:read']);
      expectOk(await h.request('GET', '/api/users/@me/', { key }));
      expectOk(await h.request('GET', `/api/projects/${projectId}/`, { key }));
      expectError(await h.request('GET', '/api/organizations/', { key }), 403, missing('organization:read'));
    });

    it("passes every scoped route with '*'", async () => {
      const key = await memberWith(['*']);
      for (const url of [
        '/api/users/@me/',
        '/api/organizations/',
        `/api/organizations/${orgId}/`,
        `/api/organizations/${orgId}/projects/`,
        '/api/projects/',
        `/api/projects/${projectId}/`,
        `/api/environments/${projectId}/`,
      ]) {
        expectOk(await h.request('GET', url, { key }));
      }
      expectOk(
        await h.request('PATCH', `/api/projects/${projectId}/`, { key, body: { anonymize_ips: false } }),
      );
    });
  });

  describe('internal routes (personal API key management)', () => {
    const everything = ['user', 'organization', 'organization_member', 'project'].map((o) => `${o}:write`);

    it("refuse a key without '*', whatever else it carries", async () => {
      const key = await memberWith(everything);
      const own = (await h.request('GET', '/api/personal_api_keys/@current/', { key })).json().id as string;
      expect(own).toEqual(expect.any(String));
      const calls: [string, string, unknown][] = [
        ['GET', '/api/personal_api_keys/', undefined],
        ['POST', '/api/personal_api_keys/', { label: 'x', scopes: ['*'] }],
        ['PATCH', `/api/personal_api_keys/${own}/`, { label: 'renamed' }],
        ['POST', `/api/personal_api_keys/${own}/roll/`, undefined],
        ['DELETE', `/api/personal_api_keys/${own}/`, undefined],
        ['DELETE', '/api/personal_api_keys/@current/', undefined],
      ];
      for (const [method, url, body] of calls) {
        expectError(await h.request(method, url, { key, body }), 403, denied(INTERNAL_DETAIL));
      }
      // Nothing above took effect: the key still works, unchanged.
      const self = await h.request('GET', `/api/personal_api_keys/${own}/`, { key });
      expectOk(self);
      expect(self.json()).toMatchObject({ id: own, label: 'test', scopes: everything });
    });

    it("let a '*' key through", async () => {
      const key = await memberWith(['*']);
      const res = await h.request('GET', '/api/personal_api_keys/', { key });
      expectOk(res);
      expect(res.json()).toHaveLength(1);
    });
  });

  describe('scoped_teams', () => {
    let otherProjectId: number;
    let key: string;

    beforeAll(async () => {
      const created = await h.request('POST', `/api/organizations/${orgId}/projects/`, {
        body: { name: 'Second' },
      });
      expect(created.statusCode, created.body).toBe(201);
      otherProjectId = created.json().id;
      key = (await h.user({ organizationId: orgId, key: { scopes: ['*'], scoped_teams: [projectId] } })).key;
    });

    it('allows the project the key is scoped to, under both path families', async () => {
      expectOk(await h.request('GET', `/api/projects/${projectId}/`, { key }));
      expectOk(await h.request('GET', `/api/environments/${projectId}/`, { key }));
    });

    it('refuses another project of the same organization', async () => {
      const detail = `API key does not have access to the requested project: ID ${otherProjectId}.`;
      expectError(await h.request('GET', `/api/projects/${otherProjectId}/`, { key }), 403, denied(detail));
      expectError(
        await h.request('GET', `/api/environments/${otherProjectId}/`, { key }),
        403,
        denied(detail),
      );
      expectError(
        await h.request('PATCH', `/api/projects/${otherProjectId}/`, { key, body: { name: 'nope' } }),
        403,
        denied(detail),
      );
    });

    it('refuses endpoints that are not project-based', async () => {
      const calls: [string, string, unknown][] = [
        ['GET', `/api/organizations/${orgId}/`, undefined],
        ['GET', '/api/organizations/@current/', undefined],
        ['GET', `/api/organizations/${orgId}/projects/`, undefined],
        ['POST', `/api/organizations/${orgId}/projects/`, { name: 'x' }],
        ['GET', '/api/projects/', undefined],
        ['GET', '/api/organizations/', undefined],
        ['POST', '/api/organizations/', { name: 'Escape' }],
        ['GET', '/api/personal_api_keys/', undefined],
        ['POST', '/api/personal_api_keys/', { label: 'wider', scopes: ['*'] }],
      ];
      for (const [method, url, body] of calls) {
        expectError(await h.request(method, url, { key, body }), 403, denied(SCOPED_PROJECTS_DETAIL));
      }
    });

    it('still allows /api/users/@me/ and reading the key itself', async () => {
      expectOk(await h.request('GET', '/api/users/@me/', { key }));
      const self = await h.request('GET', '/api/personal_api_keys/@current/', { key });
      expectOk(self);
      expect(self.json().scoped_teams).toEqual([projectId]);
    });

    it('still needs the scope on the allowed project', async () => {
      const narrow = (
        await h.user({ organizationId: orgId, key: { scopes: ['user:read'], scoped_teams: [projectId] } })
      ).key;
      expectError(
        await h.request('GET', `/api/projects/${projectId}/`, { key: narrow }),
        403,
        missing('project:read'),
      );
    });
  });

  describe('scoped_organizations', () => {
    let a: { orgId: string; projectId: number };
    let b: { orgId: string; projectId: number };
    let key: string;

    beforeAll(async () => {
      const owner = await h.owner('Scoped A');
      a = { orgId: owner.organizationId, projectId: owner.projectId };
      const created = await h.request('POST', '/api/organizations/', {
        key: owner.key,
        body: { name: 'Scoped B' },
      });
      expect(created.statusCode, created.body).toBe(201);
      b = { orgId: created.json().id, projectId: created.json().teams[0].id };
      key = (await mint(owner.key, { scoped_organizations: [a.orgId] })).value;
    });

    it('allows the organization it is scoped to and its projects', async () => {
      expectOk(await h.request('GET', `/api/organizations/${a.orgId}/`, { key }));
      expectOk(await h.request('GET', `/api/organizations/${a.orgId}/projects/`, { key }));
      expectOk(await h.request('GET', `/api/projects/${a.projectId}/`, { key }));
    });

    it('refuses another organization the user belongs to, and its projects', async () => {
      const detail = denied(`API key does not have access to the requested organization: ID ${b.orgId}.`);
      expectError(await h.request('GET', `/api/organizations/${b.orgId}/`, { key }), 403, detail);
      expectError(await h.request('GET', `/api/organizations/${b.orgId}/projects/`, { key }), 403, detail);
      expectError(await h.request('GET', `/api/projects/${b.projectId}/`, { key }), 403, detail);
      expectError(await h.request('GET', `/api/environments/${b.projectId}/`, { key }), 403, detail);
      // Creating an organization made B the user's current one, but a restricted key's @current
      // stays inside its restriction (issue 29): it resolves to A.
      const current = await h.request('GET', '/api/organizations/@current/', { key });
      expectOk(current);
      expect(current.json().id).toBe(a.orgId);
    });

    it('allows /api/users/@me/, showing only the organizations it is scoped to', async () => {
      // PostHog exempts @me from the restriction check and lists every organization; Burrow answers
      // but keeps a restricted key's view inside its restriction (security review, issue 15).
      const res = await h.request('GET', '/api/users/@me/', { key });
      expectOk(res);
      expect(res.json().organizations.map((o: { id: string }) => o.id)).toEqual([a.orgId]);
    });

    it('cannot manage keys, so it cannot mint itself an unrestricted one', async () => {
      const detail = denied('This action does not support Personal API Key access');
      const body = { label: 'escape', scopes: ['*'], scoped_teams: [], scoped_organizations: [] };
      expectError(await h.request('POST', '/api/personal_api_keys/', { key, body }), 403, detail);
      expectError(await h.request('GET', '/api/personal_api_keys/', { key }), 403, detail);
      expectOk(await h.request('GET', '/api/personal_api_keys/@current/', { key }));
    });
  });

  describe('membership', () => {
    let outsider: string;

    beforeAll(async () => {
      outsider = (await h.owner('Outsiders')).key;
    });

    it("refuses another organization's organization and project with 403", async () => {
      const calls: [string, string, unknown][] = [
        ['GET', `/api/organizations/${orgId}/`, undefined],
        ['PATCH', `/api/organizations/${orgId}/`, { name: 'hijack' }],
        ['GET', `/api/organizations/${orgId}/projects/`, undefined],
        ['POST', `/api/organizations/${orgId}/projects/`, { name: 'x' }],
        ['GET', `/api/projects/${projectId}/`, undefined],
        ['GET', `/api/environments/${projectId}/`, undefined],
        ['PATCH', `/api/projects/${projectId}/`, { name: 'hijack' }],
        ['DELETE', `/api/projects/${projectId}/`, undefined],
      ];
      for (const [method, url, body] of calls) {
        expectError(await h.request(method, url, { key: outsider, body }), 403, denied());
      }
      expectOk(await h.request('GET', `/api/projects/${projectId}/`));
    });

    it.each([
      '/api/projects/999999/',
      '/api/projects/2147483647/',
      '/api/projects/2147483648/',
      '/api/projects/99999999999999999999/',
      '/api/projects/0/',
      '/api/projects/-1/',
      '/api/projects/1.5/',
      '/api/projects/abc/',
      '/api/environments/abc/',
      `/api/organizations/${randomUUID()}/`,
      `/api/organizations/${randomUUID()}/projects/`,
      '/api/organizations/not-a-uuid/',
      '/api/organizations/12345/',
    ])('answers 404 for %s', async (url) => {
      expectError(await h.request('GET', url, { key: outsider }), 404, NOT_FOUND);
      expectError(await h.request('GET', url), 404, NOT_FOUND);
    });

    it('answers 404 for @current when the user has no organization', async () => {
      const { key } = await h.user();
      expectError(await h.request('GET', '/api/organizations/@current/', { key }), 404, NOT_FOUND);
      expectError(await h.request('GET', '/api/projects/@current/', { key }), 404, NOT_FOUND);
      expectOk(await h.request('GET', '/api/users/@me/', { key }));
    });
  });

  describe('members_can_use_personal_api_keys', () => {
    it('blocks a member-level key, not an admin or owner, while off', async () => {
      const owner = await h.owner('Strict org');
      const member = (await h.user({ organizationId: owner.organizationId, level: MEMBER })).key;
      const admin = (await h.user({ organizationId: owner.organizationId, level: ADMIN })).key;
      const project = `/api/projects/${owner.projectId}/`;
      const org = `/api/organizations/${owner.organizationId}/`;
      for (const key of [member, admin, owner.key]) expectOk(await h.request('GET', project, { key }));

      const off = await h.request('PATCH', org, {
        key: owner.key,
        body: { members_can_use_personal_api_keys: false },
      });
      expectOk(off);
      expect(off.json().members_can_use_personal_api_keys).toBe(false);

      const policy = denied(
        "Organization 'Strict org' does not allow using personal API keys. Contact an admin to enable personal API keys for this organization.",
      );
      expectError(await h.request('GET', project, { key: member }), 403, policy);
      expectError(await h.request('GET', org, { key: member }), 403, policy);
      expectError(await h.request('GET', `${org}projects/`, { key: member }), 403, policy);
      for (const key of [admin, owner.key]) {
        expectOk(await h.request('GET', project, { key }));
        expectOk(await h.request('GET', org, { key }));
      }

      expectOk(
        await h.request('PATCH', org, { key: admin, body: { members_can_use_personal_api_keys: true } }),
      );
      expectOk(await h.request('GET', project, { key: member }));
    });
  });

  describe('key lifecycle', () => {
    let manager: string;

    beforeAll(async () => {
      manager = (await h.user({ organizationId: orgId, level: OWNER })).key;
    });

    it('revoking a cached key makes it 401 at once', async () => {
      const { id, value } = await mint(manager);
      expectOk(await h.request('GET', '/api/users/@me/', { key: value }));
      const del = await h.request('DELETE', `/api/personal_api_keys/${id}/`, { key: manager });
      expect(del.statusCode).toBe(204);
      expect(del.body).toBe('');
      expectError(
        await h.request('GET', '/api/users/@me/', { key: value }),
        401,
        invalidKey('Authorization header'),
      );
      expectError(
        await h.request('GET', `/api/users/@me/?personal_api_key=${value}`, { key: null }),
        401,
        invalidKey('query string'),
      );
    });

    it('a key revoking itself through @current is 401 afterwards', async () => {
      const { value } = await mint(manager);
      expectOk(await h.request('GET', '/api/users/@me/', { key: value }));
      expect((await h.request('DELETE', '/api/personal_api_keys/@current/', { key: value })).statusCode).toBe(
        204,
      );
      expectError(
        await h.request('GET', '/api/users/@me/', { key: value }),
        401,
        invalidKey('Authorization header'),
      );
    });

    it('rolling a cached key retires the old value and the new one works', async () => {
      const { id, value } = await mint(manager);
      expectOk(await h.request('GET', '/api/users/@me/', { key: value }));
      const rolled = await h.request('POST', `/api/personal_api_keys/${id}/roll/`, { key: manager });
      expectOk(rolled);
      const fresh = rolled.json().value as string;
      expect(fresh).toMatch(/^phx_[0-9A-Za-z]+$/);
      expect(fresh).not.toBe(value);
      expectError(
        await h.request('GET', '/api/users/@me/', { key: value }),
        401,
        invalidKey('Authorization header'),
      );
      expectOk(await h.request('GET', '/api/users/@me/', { key: fresh }));
      expect((await h.request('GET', '/api/personal_api_keys/@current/', { key: fresh })).json().id).toBe(id);
    });

    it('narrowing the scopes of a cached key applies at once', async () => {
      const { id, value } = await mint(manager);
      expectOk(await h.request('GET', `/api/projects/${projectId}/`, { key: value }));
      expectOk(
        await h.request('PATCH', `/api/personal_api_keys/${id}/`, {
          key: manager,
          body: { scopes: ['user:read'] },
        }),
      );
      expectError(
        await h.request('GET', `/api/projects/${projectId}/`, { key: value }),
        403,
        missing('project:read'),
      );
      expectOk(await h.request('GET', '/api/users/@me/', { key: value }));
    });

    it('sets last_used_at after the key is used', async () => {
      const { id, value } = await mint(manager);
      const before = await h.request('GET', `/api/personal_api_keys/${id}/`, { key: manager });
      expect(before.json().last_used_at).toBeNull();
      const start = Date.now();
      expectOk(await h.request('GET', '/api/users/@me/', { key: value }));
      await vi.waitFor(
        async () => {
          const after = await h.request('GET', `/api/personal_api_keys/${id}/`, { key: manager });
          const lastUsed = after.json().last_used_at as string | null;
          expect(lastUsed).not.toBeNull();
          expect(Date.parse(lastUsed as string)).toBeGreaterThanOrEqual(start - 1000);
          expect(Date.parse(lastUsed as string)).toBeLessThanOrEqual(Date.now() + 1000);
        },
        { timeout: 5000, interval: 50 },
      );
    });
  });

  describe('@current', () => {
    it('names the current organization and project', async () => {
      const org = await h.request('GET', '/api/organizations/@current/');
      expectOk(org);
      expect(org.json().id).toBe(orgId);
      for (const url of ['/api/projects/@current/', '/api/environments/@current/']) {
        const res = await h.request('GET', url);
        expectOk(res);
        expect(res.json().id).toBe(projectId);
      }
      const projects = await h.request('GET', '/api/organizations/@current/projects/');
      expectOk(projects);
      expect(projects.json().results.map((t: { id: number }) => t.id)).toContain(projectId);
    });

    it("falls back to the user's first organization and its first project", async () => {
      const owner = await h.owner('Fallback org');
      const { key } = await h.user({ organizationId: owner.organizationId });
      expect((await h.request('GET', '/api/organizations/@current/', { key })).json().id).toBe(
        owner.organizationId,
      );
      expect((await h.request('GET', '/api/projects/@current/', { key })).json().id).toBe(owner.projectId);
    });
  });

  describe('trailing slash', () => {
    it.each([
      '/api/users/@me',
      '/api/organizations',
      '/api/organizations/@current',
      '/api/organizations/@current/projects',
      '/api/projects',
      '/api/projects/@current',
      '/api/environments/@current',
      '/api/personal_api_keys',
      '/api/personal_api_keys/@current',
    ])('GET %s works with and without the slash', async (path) => {
      const without = await h.request('GET', path);
      const withSlash = await h.request('GET', `${path}/`);
      expectOk(without);
      expectOk(withSlash);
      expect(without.json()).toEqual(withSlash.json());
      expectError(await h.request('GET', path, { key: null }), 401, NOT_AUTHENTICATED);
    });

    it('write routes work without the slash', async () => {
      const owner = await h.owner('No slash org');
      const key = owner.key;
      const created = await h.request('POST', '/api/personal_api_keys', {
        key,
        body: { label: 'ns', scopes: ['*'] },
      });
      expectOk(created, 201);
      const id = created.json().id as string;
      expectOk(await h.request('PATCH', `/api/personal_api_keys/${id}`, { key, body: { label: 'ns2' } }));
      expectOk(await h.request('POST', `/api/personal_api_keys/${id}/roll`, { key }));
      expectOk(await h.request('DELETE', `/api/personal_api_keys/${id}`, { key }), 204);
      expectOk(
        await h.request('PATCH', `/api/projects/${owner.projectId}`, { key, body: { name: 'Renamed' } }),
      );
      expectOk(
        await h.request('PATCH', `/api/organizations/${owner.organizationId}`, { key, body: { name: 'R' } }),
      );
      expectOk(
        await h.request('POST', `/api/organizations/${owner.organizationId}/projects`, {
          key,
          body: { name: 'P2' },
        }),
        201,
      );
      expectOk(await h.request('POST', '/api/organizations', { key, body: { name: 'Another' } }), 201);
    });
  });
});
