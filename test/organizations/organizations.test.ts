import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, MEMBER, OWNER } from '../../src/domain/organizations/levels.js';
import { DENIED, INSUFFICIENT, ISO, NOT_FOUND, UUID } from '../helpers/bodies.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

describe(`organizations (${backend})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  describe('list', () => {
    it('lists the bootstrap organization with the owner level', async () => {
      const res = await h.request('GET', '/api/organizations/');
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ count: 1, next: null, previous: null });
      expect(body.results).toEqual([
        {
          id: h.boot.organization_id,
          name: 'Default organization',
          slug: 'default',
          logo_media_id: null,
          created_at: expect.stringMatching(ISO),
          updated_at: expect.stringMatching(ISO),
          membership_level: OWNER,
          teams: [
            expect.objectContaining({
              id: h.boot.project_id,
              organization: h.boot.organization_id,
              api_token: h.boot.project_api_key,
              name: 'Default project',
            }),
          ],
          projects: [
            { id: h.boot.project_id, name: 'Default project', organization_id: h.boot.organization_id },
          ],
          available_product_features: [],
          is_member_join_email_enabled: true,
          members_can_use_personal_api_keys: true,
          metadata: {},
          customer_id: null,
          enforce_2fa: null,
        },
      ]);
    });

    it('lists only organizations the caller belongs to, with their own level', async () => {
      const other = await h.owner('Someone else');
      const member = await h.user({ organizationId: other.organizationId, level: MEMBER });
      const res = await h.request('GET', '/api/organizations/', { key: member.key });
      expect(res.statusCode).toBe(200);
      expect(res.json().count).toBe(1);
      expect(
        res.json().results.map((o: { id: string; membership_level: number }) => [o.id, o.membership_level]),
      ).toEqual([[other.organizationId, MEMBER]]);
      const mine = await h.request('GET', '/api/organizations/');
      expect(mine.json().results.map((o: { id: string }) => o.id)).not.toContain(other.organizationId);
    });

    it('needs credentials', async () => {
      const res = await h.request('GET', '/api/organizations/', { key: null });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('not_authenticated');
    });
  });

  describe('create', () => {
    it('creates an organization owned by the caller, with a first project, and makes it current', async () => {
      const { user, key } = await h.user();
      const res = await h.request('POST', '/api/organizations/', { key, body: { name: '  Acme, Inc.  ' } });
      expect(res.statusCode).toBe(201);
      const org = res.json();
      expect(org).toMatchObject({
        id: expect.stringMatching(UUID),
        name: 'Acme, Inc.',
        slug: 'acme-inc',
        membership_level: OWNER,
        members_can_use_personal_api_keys: true,
        is_member_join_email_enabled: true,
        created_at: expect.stringMatching(ISO),
      });
      expect(org.teams).toHaveLength(1);
      const team = org.teams[0];
      expect(team).toMatchObject({
        id: expect.any(Number),
        organization: org.id,
        name: 'Default project',
        timezone: 'UTC',
        api_token: expect.stringMatching(/^phc_[A-Za-z0-9]+$/),
      });
      expect(team.api_token).not.toBe(h.boot.project_api_key);
      expect(org.projects).toEqual([{ id: team.id, name: 'Default project', organization_id: org.id }]);

      const me = (await h.request('GET', '/api/users/@me/', { key })).json();
      expect(me.id).toBe(user.id);
      expect(me.organization).toMatchObject({ id: org.id, membership_level: OWNER });
      expect(me.team).toMatchObject({ id: team.id });
      const current = await h.request('GET', '/api/organizations/@current/', { key });
      expect(current.statusCode).toBe(200);
      expect(current.json().id).toBe(org.id);
      const project = await h.request('GET', '/api/projects/@current/', { key });
      expect(project.json().id).toBe(team.id);

      const listed = (await h.request('GET', '/api/organizations/', { key })).json();
      expect(listed.count).toBe(1);
      expect(listed.results[0]).toEqual(org);
    });

    it('keeps the previous organizations and switches current to the new one', async () => {
      const owner = await h.owner('First org');
      const res = await h.request('POST', '/api/organizations/', {
        key: owner.key,
        body: { name: 'Next org' },
      });
      expect(res.statusCode).toBe(201);
      const list = (await h.request('GET', '/api/organizations/', { key: owner.key })).json();
      expect(list.count).toBe(2);
      expect(list.results.map((o: { id: string }) => o.id).sort()).toEqual(
        [owner.organizationId, res.json().id].sort(),
      );
      const current = (await h.request('GET', '/api/organizations/@current/', { key: owner.key })).json();
      expect(current.id).toBe(res.json().id);
    });

    it('generates unique slugs', async () => {
      const first = (await h.request('POST', '/api/organizations/', { body: { name: 'Slug Test' } })).json();
      const second = (
        await h.request('POST', '/api/organizations/', { body: { name: 'slug   test!' } })
      ).json();
      expect(first.slug).toBe('slug-test');
      expect(second.slug).toMatch(/^slug-test-[a-z0-9]+$/);
      expect(second.slug).not.toBe(first.slug);
      const third = (await h.request('POST', '/api/organizations/', { body: { name: 'Slug Test' } })).json();
      expect(new Set([first.slug, second.slug, third.slug]).size).toBe(3);
    });

    it.each([
      ['Café Crème', 'cafe-creme'],
      ['!!!', 'organization'],
      ['Default', 'default-'],
    ])('slugifies %j', async (name, slug) => {
      const res = await h.request('POST', '/api/organizations/', { body: { name } });
      expect(res.statusCode).toBe(201);
      if (slug.endsWith('-')) {
        // "default" is taken by the bootstrap organization.
        expect(res.json().slug).toMatch(new RegExp(`^${slug}[a-z0-9]+$`));
      } else {
        expect(res.json().slug).toBe(slug);
      }
    });

    it('needs the organization:write scope', async () => {
      const { key } = await h.user({ key: { scopes: ['organization:read'] } });
      const res = await h.request('POST', '/api/organizations/', { key, body: { name: 'Nope' } });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        ...DENIED,
        detail: "API key missing required scope 'organization:write'",
      });
    });
  });

  describe('retrieve', () => {
    it('retrieves by id, by upper-case id and by @current', async () => {
      const byId = await h.request('GET', `/api/organizations/${h.boot.organization_id}/`);
      expect(byId.statusCode).toBe(200);
      expect(byId.json()).toMatchObject({
        id: h.boot.organization_id,
        slug: 'default',
        membership_level: OWNER,
      });
      const upper = await h.request('GET', `/api/organizations/${h.boot.organization_id.toUpperCase()}/`);
      expect(upper.statusCode).toBe(200);
      expect(upper.json().id).toBe(h.boot.organization_id);
      const noSlash = await h.request('GET', `/api/organizations/${h.boot.organization_id}`);
      expect(noSlash.statusCode).toBe(200);
      expect(noSlash.json().id).toBe(h.boot.organization_id);
    });

    it('shows a member their own level', async () => {
      const member = await h.user({ organizationId: h.boot.organization_id, level: MEMBER });
      const res = await h.request('GET', `/api/organizations/${h.boot.organization_id}/`, {
        key: member.key,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().membership_level).toBe(MEMBER);
    });

    it('is 403 for a non-member and 404 for an unknown organization', async () => {
      const outsider = await h.owner('Outsider org');
      const res = await h.request('GET', `/api/organizations/${h.boot.organization_id}/`, {
        key: outsider.key,
      });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual(DENIED);
      const missing = await h.request('GET', '/api/organizations/6f0a3c3e-8a3b-4c8e-9a63-0d6d2b0f3e11/');
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual(NOT_FOUND);
    });

    it('is 404 for @current when the caller has no organization', async () => {
      const { key } = await h.user();
      const res = await h.request('GET', '/api/organizations/@current/', { key });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(NOT_FOUND);
    });
  });

  describe('update', () => {
    it('lets the owner rename and change settings', async () => {
      const owner = await h.owner('Rename me');
      const url = `/api/organizations/${owner.organizationId}/`;
      const before = (await h.request('GET', url, { key: owner.key })).json();
      const res = await h.request('PATCH', url, {
        key: owner.key,
        body: { name: '  Renamed  ', is_member_join_email_enabled: false, slug: 'ignored' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        id: owner.organizationId,
        name: 'Renamed',
        slug: before.slug,
        is_member_join_email_enabled: false,
        members_can_use_personal_api_keys: true,
        membership_level: OWNER,
        created_at: before.created_at,
      });
      expect(Date.parse(res.json().updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
      const after = (await h.request('GET', url, { key: owner.key })).json();
      expect(after).toEqual(res.json());
    });

    it('accepts an empty PATCH and changes nothing but updated_at', async () => {
      const url = `/api/organizations/${h.boot.organization_id}/`;
      const before = (await h.request('GET', url)).json();
      const res = await h.request('PATCH', url, { body: {} });
      expect(res.statusCode).toBe(200);
      expect({ ...res.json(), updated_at: null }).toEqual({ ...before, updated_at: null });
    });

    it('ignores the read-only fields of an object read back, refuses an unknown field by name', async () => {
      const owner = await h.owner('Round trip');
      const url = `/api/organizations/${owner.organizationId}/`;
      const before = (await h.request('GET', url, { key: owner.key })).json();
      const back = await h.request('PATCH', url, {
        key: owner.key,
        body: { ...before, name: 'Round trip 2' },
      });
      expect(back.statusCode).toBe(200);
      expect({ ...back.json(), updated_at: null }).toEqual({
        ...before,
        name: 'Round trip 2',
        updated_at: null,
      });
      for (const body of [{ is_ai_data_processing_approved: true }, { members_can_invite: false }]) {
        const res = await h.request('PATCH', url, { key: owner.key, body });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({
          type: 'validation_error',
          code: 'unsupported_field',
          detail: 'This field is not supported.',
          attr: Object.keys(body)[0],
        });
      }
      const twoFactor = await h.request('PATCH', url, { key: owner.key, body: { enforce_2fa: true } });
      expect(twoFactor.json()).toMatchObject({ code: 'invalid_choice', attr: 'enforce_2fa' });
    });

    it('validates the name', async () => {
      const url = `/api/organizations/${h.boot.organization_id}/`;
      const blank = await h.request('PATCH', url, { body: { name: ' ' } });
      expect(blank.statusCode).toBe(400);
      expect(blank.json()).toEqual({
        type: 'validation_error',
        code: 'blank',
        detail: 'This field may not be blank.',
        attr: 'name',
      });
      const wrong = await h.request('PATCH', url, { body: { members_can_use_personal_api_keys: 'nope' } });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json()).toEqual({
        type: 'validation_error',
        code: 'invalid_input',
        detail: 'Must be a valid boolean.',
        attr: 'members_can_use_personal_api_keys',
      });
      expect((await h.request('GET', url)).json().name).toBe('Default organization');
    });

    it('refuses a member with 403 and lets an admin through', async () => {
      const owner = await h.owner('Levels org');
      const url = `/api/organizations/${owner.organizationId}/`;
      const member = await h.user({ organizationId: owner.organizationId, level: MEMBER });
      const denied = await h.request('PATCH', url, { key: member.key, body: { name: 'By member' } });
      expect(denied.statusCode).toBe(403);
      expect(denied.json()).toEqual(INSUFFICIENT);
      expect((await h.request('GET', url, { key: owner.key })).json().name).toBe('Levels org');

      const admin = await h.user({ organizationId: owner.organizationId, level: ADMIN });
      const allowed = await h.request('PATCH', url, { key: admin.key, body: { name: 'By admin' } });
      expect(allowed.statusCode).toBe(200);
      expect(allowed.json()).toMatchObject({ name: 'By admin', membership_level: ADMIN });
    });

    it('refuses a non-member with 403 and an unknown organization with 404', async () => {
      const outsider = await h.owner('Another outsider');
      const denied = await h.request('PATCH', `/api/organizations/${h.boot.organization_id}/`, {
        key: outsider.key,
        body: { name: 'Hijacked' },
      });
      expect(denied.statusCode).toBe(403);
      expect(denied.json()).toEqual(DENIED);
      const missing = await h.request('PATCH', '/api/organizations/6f0a3c3e-8a3b-4c8e-9a63-0d6d2b0f3e11/', {
        body: { name: 'x' },
      });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual(NOT_FOUND);
    });

    it('enforces members_can_use_personal_api_keys for members but not admins', async () => {
      const owner = await h.owner('Strict org');
      const url = `/api/organizations/${owner.organizationId}/`;
      const member = await h.user({ organizationId: owner.organizationId, level: MEMBER });
      expect((await h.request('GET', url, { key: member.key })).statusCode).toBe(200);
      const res = await h.request('PATCH', url, {
        key: owner.key,
        body: { members_can_use_personal_api_keys: false },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().members_can_use_personal_api_keys).toBe(false);
      const blocked = await h.request('GET', url, { key: member.key });
      expect(blocked.statusCode).toBe(403);
      expect(blocked.json()).toEqual({
        ...DENIED,
        detail:
          "Organization 'Strict org' does not allow using personal API keys. Contact an admin to enable personal API keys for this organization.",
      });
      expect((await h.request('GET', url, { key: owner.key })).statusCode).toBe(200);
    });
  });
});
