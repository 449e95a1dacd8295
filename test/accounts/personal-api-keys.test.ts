import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPersonalApiKey, maskKeyValue, newKeyId } from '../../src/domain/ids.js';
import { insertKey } from '../../src/store/meta/personal-api-keys.js';
import { NOT_FOUND } from '../helpers/bodies.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const INTERNAL = {
  type: 'authentication_error',
  code: 'permission_denied',
  detail: 'This action does not support Personal API Key access',
  attr: null,
};
const invalid = (detail: string, attr: string | null, code = 'invalid_input') => ({
  type: 'validation_error',
  code,
  detail,
  attr,
});
const FIELDS = [
  'created_at',
  'id',
  'label',
  'last_rolled_at',
  'last_used_at',
  'mask_value',
  'scoped_organizations',
  'scoped_teams',
  'scopes',
  'user_id',
  'value',
];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

interface KeyBody {
  id: string;
  label: string;
  value: string | null;
  mask_value: string;
  created_at: string;
  last_used_at: string | null;
  last_rolled_at: string | null;
  user_id: number;
  scopes: string[];
  scoped_teams: number[];
  scoped_organizations: string[];
}

function expectError(res: LightMyRequestResponse, status: number, body: object) {
  expect({ status: res.statusCode, body: res.json() }).toEqual({ status, body });
}

function expectStatus(res: LightMyRequestResponse, status: number) {
  expect({ status: res.statusCode, body: res.statusCode === status ? null : res.body }).toEqual({
    status,
    body: null,
  });
}

describe(`personal API keys (${backend})`, () => {
  let h: Harness;
  // Strictly increasing timestamps, so "newest first" is well defined even within one millisecond.
  let last = 0;
  const now = () => {
    last = Math.max(Date.now(), last + 1);
    return new Date(last);
  };

  beforeAll(async () => {
    h = await startHarness({}, { now });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** A fresh member of the bootstrap organization holding one `*` key, so key limits never collide. */
  async function caller() {
    const { user, key } = await h.user({ organizationId: h.boot.organization_id });
    return { userId: user.id, key };
  }

  async function create(key: string, body: Record<string, unknown>) {
    const res = await h.request('POST', '/api/personal_api_keys/', { key, body: { label: 'k', ...body } });
    expectStatus(res, 201);
    return res.json() as KeyBody & { value: string };
  }

  const list = async (key: string) => {
    const res = await h.request('GET', '/api/personal_api_keys/', { key });
    expectStatus(res, 200);
    return res.json() as KeyBody[];
  };

  describe('create', () => {
    it('returns 201 with the value, shown this once', async () => {
      const { userId, key } = await caller();
      const before = Date.now();
      const res = await h.request('POST', '/api/personal_api_keys/', {
        key,
        body: { label: 'CI deploys', scopes: ['project:read', 'user:read'] },
      });
      expectStatus(res, 201);
      const body = res.json() as KeyBody & { value: string };
      expect(Object.keys(body).sort()).toEqual(FIELDS);
      expect(body).toMatchObject({
        label: 'CI deploys',
        user_id: userId,
        scopes: ['project:read', 'user:read'],
        scoped_teams: [],
        scoped_organizations: [],
        last_used_at: null,
        last_rolled_at: null,
      });
      expect(body.value).toMatch(/^phx_[0-9A-Za-z]+$/);
      expect(body.value.length).toBeGreaterThanOrEqual(44);
      expect(body.value.length).toBeLessThanOrEqual(52);
      expect(body.mask_value).toBe(`phx_...${body.value.slice(-4)}`);
      expect(body.id).toMatch(/^[0-9A-Za-z]+$/);
      expect(body.id).not.toContain(body.value.slice(4));
      expect(body.created_at).toMatch(ISO);
      expect(Date.parse(body.created_at)).toBeGreaterThanOrEqual(before - 1000);

      // The value works as a credential, and is never shown again.
      const self = await h.request('GET', '/api/personal_api_keys/@current/', { key: body.value });
      expectStatus(self, 200);
      expect(self.json()).toEqual({ ...body, value: null, last_used_at: self.json().last_used_at });
      const byId = await h.request('GET', `/api/personal_api_keys/${body.id}/`, { key });
      expect(byId.json().value).toBeNull();
      expect((await list(key)).every((k) => k.value === null)).toBe(true);
    });

    it('mints a different value and id every time', async () => {
      const { key } = await caller();
      const a = await create(key, { scopes: ['*'] });
      const b = await create(key, { scopes: ['*'] });
      expect(a.value).not.toBe(b.value);
      expect(a.id).not.toBe(b.id);
    });

    it('trims the label and drops duplicate scopes', async () => {
      const { key } = await caller();
      const body = await create(key, { label: '  spaced  ', scopes: ['user:read', 'user:read'] });
      expect(body.label).toBe('spaced');
      expect(body.scopes).toEqual(['user:read']);
    });

    it('accepts a 40-character label', async () => {
      const { key } = await caller();
      expect((await create(key, { label: 'x'.repeat(40), scopes: ['*'] })).label).toBe('x'.repeat(40));
    });

    it('stores scoped_teams and scoped_organizations the user belongs to', async () => {
      const { key } = await caller();
      const body = await create(key, {
        scopes: ['*'],
        scoped_teams: [h.boot.project_id],
        scoped_organizations: [h.boot.organization_id.toUpperCase()],
      });
      expect(body.scoped_teams).toEqual([h.boot.project_id]);
      expect(body.scoped_organizations).toEqual([h.boot.organization_id]);
      const fetched = await h.request('GET', `/api/personal_api_keys/${body.id}/`, { key });
      expect(fetched.json()).toMatchObject({
        scoped_teams: [h.boot.project_id],
        scoped_organizations: [h.boot.organization_id],
      });
    });

    it('renders a legacy key with no scopes as ["*"] and lets it through', async () => {
      const { userId, key } = await caller();
      const raw = 'phx_legacykeywithoutscopes0000000000000000000000';
      await insertKey(h.stores.meta.db, {
        id: newKeyId(),
        userId,
        label: 'legacy',
        maskValue: maskKeyValue(raw),
        secureValue: hashPersonalApiKey(raw),
        createdAt: now().toISOString(),
        lastUsedAt: null,
        lastRolledAt: null,
        scopes: [],
        scopedTeams: null,
        scopedOrganizations: null,
      });
      const legacy = (await list(key)).find((k) => k.label === 'legacy');
      expect(legacy?.scopes).toEqual(['*']);
      expectStatus(await h.request('GET', `/api/projects/${h.boot.project_id}/`, { key: raw }), 200);
      expectStatus(await h.request('GET', '/api/personal_api_keys/', { key: raw }), 200);
    });
  });

  describe('create validation', () => {
    const notMemberTeams = 'You must be a member of all teams that you are scoping the key to.';
    const notMemberOrgs = 'You must be a member of all organizations that you are scoping the key to.';
    let foreignProject: number;
    let foreignOrg: string;

    beforeAll(async () => {
      const other = await h.owner('Foreign org');
      foreignProject = other.projectId;
      foreignOrg = other.organizationId;
    });

    it.each<[string, () => unknown, object]>([
      ['a missing label', () => ({ scopes: ['*'] }), invalid('This field is required.', 'label', 'required')],
      [
        'a blank label',
        () => ({ label: '', scopes: ['*'] }),
        invalid('This field may not be blank.', 'label', 'blank'),
      ],
      [
        'a whitespace label',
        () => ({ label: '   ', scopes: ['*'] }),
        invalid('This field may not be blank.', 'label', 'blank'),
      ],
      [
        'a 41-character label',
        () => ({ label: 'x'.repeat(41), scopes: ['*'] }),
        invalid('Ensure this field has no more than 40 characters.', 'label', 'max_length'),
      ],
      ['missing scopes', () => ({ label: 'k' }), invalid('This field is required.', 'scopes', 'required')],
      [
        'empty scopes',
        () => ({ label: 'k', scopes: [] }),
        invalid('At least one scope is required.', 'scopes'),
      ],
      [
        'an unknown object',
        () => ({ label: 'k', scopes: ['foo:bar'] }),
        invalid('Invalid scope: foo:bar', 'scopes'),
      ],
      [
        'an unknown action',
        () => ({ label: 'k', scopes: ['project:read', 'project:admin'] }),
        invalid('Invalid scope: project:admin', 'scopes'),
      ],
      [
        'a bare object',
        () => ({ label: 'k', scopes: ['project'] }),
        invalid('Invalid scope: project', 'scopes'),
      ],
      [
        'three parts',
        () => ({ label: 'k', scopes: ['project:read:x'] }),
        invalid('Invalid scope: project:read:x', 'scopes'),
      ],
      [
        'a wildcard action',
        () => ({ label: 'k', scopes: ['*:read'] }),
        invalid('Invalid scope: *:read', 'scopes'),
      ],
      [
        'scopes given as a string',
        () => ({ label: 'k', scopes: 'project:read' }),
        invalid('Expected a list of items but got type "str".', 'scopes', 'not_a_list'),
      ],
      [
        "another organization's project",
        () => ({ label: 'k', scopes: ['*'], scoped_teams: [foreignProject] }),
        invalid(notMemberTeams, 'scoped_teams'),
      ],
      [
        'a nonexistent project',
        () => ({ label: 'k', scopes: ['*'], scoped_teams: [h.boot.project_id, 987654] }),
        invalid(notMemberTeams, 'scoped_teams'),
      ],
      [
        'a non-integer project id',
        () => ({ label: 'k', scopes: ['*'], scoped_teams: ['abc'] }),
        invalid('A valid integer is required.', 'scoped_teams__0'),
      ],
      [
        'a non-UUID organization',
        () => ({ label: 'k', scopes: ['*'], scoped_organizations: ['not-a-uuid'] }),
        invalid('Invalid organization UUID', 'scoped_organizations'),
      ],
      [
        'an unknown organization',
        () => ({ label: 'k', scopes: ['*'], scoped_organizations: [randomUUID()] }),
        invalid(notMemberOrgs, 'scoped_organizations'),
      ],
      [
        "an organization the user doesn't belong to",
        () => ({ label: 'k', scopes: ['*'], scoped_organizations: [h.boot.organization_id, foreignOrg] }),
        invalid(notMemberOrgs, 'scoped_organizations'),
      ],
      [
        'a list body',
        () => [{ label: 'k', scopes: ['*'] }],
        invalid('Invalid data. Expected a dictionary, but got list.', null),
      ],
    ])('refuses %s', async (_name, body, expected) => {
      const { key } = await caller();
      const res = await h.request('POST', '/api/personal_api_keys/', { key, body: body() });
      expectError(res, 400, expected);
      expect(await list(key)).toHaveLength(1);
    });

    it('allows at most 10 keys per user', async () => {
      const { key } = await caller(); // the harness gave this user its first key
      const made: string[] = [];
      for (let i = 2; i <= 10; i++) made.push((await create(key, { label: `key ${i}`, scopes: ['*'] })).id);
      const res = await h.request('POST', '/api/personal_api_keys/', {
        key,
        body: { label: 'eleventh', scopes: ['*'] },
      });
      expectError(
        res,
        400,
        invalid(
          'You can only have 10 personal API keys. Remove an existing key before creating a new one.',
          null,
        ),
      );
      expect(await list(key)).toHaveLength(10);
      expectStatus(await h.request('DELETE', `/api/personal_api_keys/${made[0]}/`, { key }), 204);
      await create(key, { label: 'tenth again', scopes: ['*'] });
      expect(await list(key)).toHaveLength(10);
    });
  });

  describe('list', () => {
    it("is a plain array of the caller's keys, newest first, without values", async () => {
      const { key } = await caller();
      const first = await create(key, { label: 'first', scopes: ['*'] });
      const second = await create(key, { label: 'second', scopes: ['user:read'] });
      await create((await caller()).key, { label: 'someone else', scopes: ['*'] });

      const res = await h.request('GET', '/api/personal_api_keys/', { key });
      expectStatus(res, 200);
      const body = res.json() as KeyBody[];
      expect(Array.isArray(body)).toBe(true);
      expect(body.map((k) => k.label)).toEqual(['second', 'first', 'test']);
      expect(body.map((k) => k.id).slice(0, 2)).toEqual([second.id, first.id]);
      for (const k of body) {
        expect(Object.keys(k).sort()).toEqual(FIELDS);
        expect(k.value).toBeNull();
        expect(k.mask_value).toMatch(/^phx_\.\.\.[0-9A-Za-z]{4}$/);
      }
      expect(body[0]?.mask_value).toBe(second.mask_value);
      const created = body.map((k) => Date.parse(k.created_at));
      expect([...created].sort((a, b) => b - a)).toEqual(created);
    });
  });

  describe('update', () => {
    it('changes the label and keeps everything else', async () => {
      const { key } = await caller();
      const made = await create(key, { label: 'old', scopes: ['project:read'] });
      const res = await h.request('PATCH', `/api/personal_api_keys/${made.id}/`, {
        key,
        body: { label: 'new' },
      });
      expectStatus(res, 200);
      expect(res.json()).toEqual({ ...made, label: 'new', value: null });
      expectStatus(await h.request('GET', '/api/users/@me/', { key: made.value }), 403);
      expectStatus(await h.request('GET', `/api/projects/${h.boot.project_id}/`, { key: made.value }), 200);
    });

    it('changes the scopes and the restrictions', async () => {
      const { key } = await caller();
      const made = await create(key, { scopes: ['project:read'], scoped_teams: [h.boot.project_id] });
      const res = await h.request('PATCH', `/api/personal_api_keys/${made.id}/`, {
        key,
        body: { scopes: ['user:read', 'organization:write'], scoped_teams: [] },
      });
      expectStatus(res, 200);
      expect(res.json()).toMatchObject({
        label: made.label,
        scopes: ['user:read', 'organization:write'],
        scoped_teams: [],
        mask_value: made.mask_value,
        value: null,
      });
      expectStatus(await h.request('GET', '/api/users/@me/', { key: made.value }), 200);
      expectStatus(
        await h.request('GET', `/api/organizations/${h.boot.organization_id}/`, { key: made.value }),
        200,
      );
      expectStatus(await h.request('GET', `/api/projects/${h.boot.project_id}/`, { key: made.value }), 403);
    });

    it.each<[string, Record<string, unknown>, object]>([
      ['a blank label', { label: ' ' }, invalid('This field may not be blank.', 'label', 'blank')],
      [
        'a long label',
        { label: 'y'.repeat(41) },
        invalid('Ensure this field has no more than 40 characters.', 'label', 'max_length'),
      ],
      ['empty scopes', { scopes: [] }, invalid('At least one scope is required.', 'scopes')],
      ['an invalid scope', { scopes: ['foo:bar'] }, invalid('Invalid scope: foo:bar', 'scopes')],
      [
        'a non-UUID organization',
        { scoped_organizations: ['x'] },
        invalid('Invalid organization UUID', 'scoped_organizations'),
      ],
    ])('refuses %s and changes nothing', async (_name, body, expected) => {
      const { key } = await caller();
      const made = await create(key, { label: 'keep', scopes: ['user:read'] });
      expectError(
        await h.request('PATCH', `/api/personal_api_keys/${made.id}/`, { key, body }),
        400,
        expected,
      );
      const after = await h.request('GET', `/api/personal_api_keys/${made.id}/`, { key });
      expect(after.json()).toMatchObject({
        label: 'keep',
        scopes: ['user:read'],
        scoped_organizations: [],
      });
    });
  });

  describe('read one', () => {
    it('lets a narrow key read itself through @current and its id', async () => {
      const { key } = await caller();
      const narrow = await create(key, { label: 'narrow', scopes: ['project:read'] });
      for (const id of ['@current', narrow.id]) {
        const res = await h.request('GET', `/api/personal_api_keys/${id}/`, { key: narrow.value });
        expectStatus(res, 200);
        expect(res.json()).toMatchObject({
          id: narrow.id,
          label: 'narrow',
          scopes: ['project:read'],
          value: null,
        });
      }
      const bare = await h.request('GET', '/api/personal_api_keys/@current', { key: narrow.value });
      expect(bare.json().id).toBe(narrow.id);
    });

    it('refuses a narrow key reading another key, existing or not', async () => {
      const { key } = await caller();
      const narrow = await create(key, { scopes: ['user:read'] });
      const sibling = await create(key, { scopes: ['*'] });
      expectError(
        await h.request('GET', `/api/personal_api_keys/${sibling.id}/`, { key: narrow.value }),
        403,
        INTERNAL,
      );
      expectError(
        await h.request('GET', '/api/personal_api_keys/doesnotexist/', { key: narrow.value }),
        403,
        INTERNAL,
      );
    });

    it("lets a '*' key read the user's other keys", async () => {
      const { key } = await caller();
      const sibling = await create(key, { label: 'sibling', scopes: ['user:read'] });
      const res = await h.request('GET', `/api/personal_api_keys/${sibling.id}/`, { key });
      expectStatus(res, 200);
      expect(res.json()).toEqual({ ...sibling, value: null });
    });

    it("answers 404 for an unknown id and for another user's key", async () => {
      const { key } = await caller();
      const { key: otherKey } = await caller();
      const foreign = await create(otherKey, { label: 'not yours', scopes: ['*'] });
      for (const id of ['doesnotexist', foreign.id]) {
        expectError(await h.request('GET', `/api/personal_api_keys/${id}/`, { key }), 404, NOT_FOUND);
        expectError(
          await h.request('PATCH', `/api/personal_api_keys/${id}/`, { key, body: { label: 'mine' } }),
          404,
          NOT_FOUND,
        );
        expectError(await h.request('POST', `/api/personal_api_keys/${id}/roll/`, { key }), 404, NOT_FOUND);
        expectError(await h.request('DELETE', `/api/personal_api_keys/${id}/`, { key }), 404, NOT_FOUND);
      }
      const still = await h.request('GET', `/api/personal_api_keys/${foreign.id}/`, { key: otherKey });
      expect(still.json()).toMatchObject({ label: 'not yours' });
      expectStatus(await h.request('GET', '/api/users/@me/', { key: foreign.value }), 200);
    });

    it('answers 404 for an id longer than 64 characters', async () => {
      const { key } = await caller();
      expectError(
        await h.request('GET', `/api/personal_api_keys/${'a'.repeat(65)}/`, { key }),
        404,
        NOT_FOUND,
      );
    });
  });

  describe('roll', () => {
    it('returns a new value once and sets last_rolled_at', async () => {
      const { key } = await caller();
      const made = await create(key, { label: 'rolled', scopes: ['user:read'] });
      const res = await h.request('POST', `/api/personal_api_keys/${made.id}/roll/`, { key });
      expectStatus(res, 200);
      const rolled = res.json() as KeyBody & { value: string };
      expect(rolled).toMatchObject({
        id: made.id,
        label: 'rolled',
        scopes: ['user:read'],
        created_at: made.created_at,
      });
      expect(rolled.value).toMatch(/^phx_[0-9A-Za-z]{40,}$/);
      expect(rolled.value).not.toBe(made.value);
      expect(rolled.mask_value).toBe(`phx_...${rolled.value.slice(-4)}`);
      expect(rolled.last_rolled_at).toMatch(ISO);
      const after = await h.request('GET', `/api/personal_api_keys/${made.id}/`, { key });
      expect(after.json()).toEqual({ ...rolled, value: null, last_used_at: after.json().last_used_at });
      expectStatus(await h.request('GET', '/api/users/@me/', { key: made.value }), 401);
      expectStatus(await h.request('GET', '/api/users/@me/', { key: rolled.value }), 200);
    });
  });

  describe('delete', () => {
    it('answers 204 with no body and forgets the key', async () => {
      const { key } = await caller();
      const made = await create(key, { scopes: ['*'] });
      const res = await h.request('DELETE', `/api/personal_api_keys/${made.id}/`, { key });
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expectError(await h.request('GET', `/api/personal_api_keys/${made.id}/`, { key }), 404, NOT_FOUND);
      expectError(await h.request('DELETE', `/api/personal_api_keys/${made.id}/`, { key }), 404, NOT_FOUND);
      expect((await list(key)).map((k) => k.id)).not.toContain(made.id);
      expectStatus(await h.request('GET', '/api/users/@me/', { key: made.value }), 401);
    });
  });
});
