import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, MEMBER, OWNER } from '../../src/domain/organizations/levels.js';
import { insertMembership } from '../../src/store/meta/memberships.js';
import { setUserCurrent } from '../../src/store/meta/users.js';
import { DENIED, denied, ISO, NOT_FOUND, UUID } from '../helpers/bodies.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { expectReply, invalid, organization } from '../helpers/org-access.js';

const FIELDS = [
  'has_social_auth',
  'id',
  'is_2fa_enabled',
  'joined_at',
  'last_login',
  'level',
  'updated_at',
  'user',
];
const LEVEL = { member: MEMBER, admin: ADMIN, owner: OWNER } as const;
type Role = keyof typeof LEVEL;

const NOT_ADMIN = denied('You can only edit others if you are an admin.');
const ABOVE_YOU = denied('You can only edit others with level lower or equal to you.');
const OWNER_ONLY = denied("You can only make another member owner if you're this organization's owner.");
const OWN_LEVEL = denied("You can't change your own access level.");
const OWNER_LEAVES = invalid('Cannot leave the organization as its owner!');

describe(`organization members (${backend})`, () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  /** An actor and a separate target with the given levels, in a fresh organization. */
  async function pair(actor: Role, target: Role) {
    const org = await organization(h);
    const a =
      actor === 'owner' ? org.owner : await h.user({ organizationId: org.orgId, level: LEVEL[actor] });
    const t = await h.user({ organizationId: org.orgId, level: LEVEL[target] });
    return { org, actor: a, target: t, url: `${org.base}/members/${t.user.uuid}/` };
  }

  it('lists active members with PostHog fields, newest first, paged and filtered', async () => {
    const org = await organization(h);
    const url = `${org.base}/members/`;
    const res = await h.request('GET', url, { key: org.member.key });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.count).toBe(3);
    const [first] = body.results;
    expect(Object.keys(first).sort()).toEqual(FIELDS);
    expect(first).toMatchObject({
      level: MEMBER,
      is_2fa_enabled: false,
      has_social_auth: false,
      last_login: null,
      user: { uuid: org.member.user.uuid, email: org.member.user.email, first_name: 'Test' },
    });
    expect(first.id).toMatch(UUID);
    expect(first.joined_at).toMatch(ISO);
    expect(body.results.map((m: { level: number }) => m.level)).toEqual([MEMBER, ADMIN, OWNER]);

    const byLevel = (await h.request('GET', `${url}?order=-level`, { key: org.member.key })).json();
    expect(byLevel.results.map((m: { level: number }) => m.level)).toEqual([OWNER, ADMIN, MEMBER]);
    const page = (
      await h.request('GET', `${url}?order=level&limit=1&offset=1`, { key: org.member.key })
    ).json();
    expect(page).toMatchObject({
      count: 3,
      next: `http://localhost${url}?limit=1&offset=2&order=level`,
      previous: `http://localhost${url}?limit=1&order=level`,
    });
    expect(page.results.map((m: { level: number }) => m.level)).toEqual([ADMIN]);

    const email = org.admin.user.email.toUpperCase();
    const found = (
      await h.request('GET', `${url}?email=${encodeURIComponent(email)}`, { key: org.member.key })
    ).json();
    expect(found.results.map((m: { user: { uuid: string } }) => m.user.uuid)).toEqual([org.admin.user.uuid]);
    expect(
      (await h.request('GET', `${url}?email=nobody@example.com`, { key: org.member.key })).json(),
    ).toEqual({ count: 0, next: null, previous: null, results: [] });

    const cut = new Date(Date.now() + 60_000).toISOString();
    expect(
      (await h.request('GET', `${url}?updated_after=${cut}`, { key: org.member.key })).json().count,
    ).toBe(0);
    expect(
      (await h.request('GET', `${url}?updated_after=2000-01-01T00:00:00Z`, { key: org.member.key })).json()
        .count,
    ).toBe(3);

    expectReply(
      await h.request('GET', `${url}?order=password`, { key: org.member.key }),
      400,
      invalid(
        '"password" is not a valid choice. Choose one of: joined_at, -joined_at, updated_at, -updated_at, level, -level.',
        'order',
        'invalid_choice',
      ),
    );
    expectReply(
      await h.request('GET', `${url}?updated_after=yesterday`, { key: org.member.key }),
      400,
      invalid(
        'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
        'updated_after',
      ),
    );
  });

  // Actor on another member, setting `level`: what each combination gets.
  const PATCH_MATRIX: Array<[Role, Role, number, number, object | null]> = [
    ['member', 'member', ADMIN, 403, NOT_ADMIN],
    ['member', 'member', MEMBER, 403, NOT_ADMIN],
    ['member', 'admin', MEMBER, 403, NOT_ADMIN],
    ['member', 'owner', MEMBER, 403, NOT_ADMIN],
    ['admin', 'member', ADMIN, 200, null],
    ['admin', 'member', OWNER, 403, OWNER_ONLY],
    ['admin', 'admin', MEMBER, 200, null],
    ['admin', 'owner', MEMBER, 403, ABOVE_YOU],
    ['admin', 'owner', ADMIN, 403, ABOVE_YOU],
    ['owner', 'member', OWNER, 200, null],
    ['owner', 'member', ADMIN, 200, null],
    ['owner', 'admin', MEMBER, 200, null],
    ['owner', 'admin', OWNER, 200, null],
    ['owner', 'owner', ADMIN, 200, null],
  ];

  it.each(PATCH_MATRIX)(
    'PATCH: %s sets a %s to level %i → %i',
    async (actor, target, level, status, error) => {
      const p = await pair(actor, target);
      const res = await h.request('PATCH', p.url, { key: p.actor.key, body: { level } });
      if (error) {
        expectReply(res, status, error);
        const unchanged = (
          await h.request('GET', `${p.org.base}/members/?email=${encodeURIComponent(p.target.user.email)}`, {
            key: p.org.owner.key,
          })
        ).json();
        expect(unchanged.results[0].level).toBe(LEVEL[target]);
      } else {
        expect(res.statusCode).toBe(status);
        expect(res.json()).toMatchObject({ level, user: { uuid: p.target.user.uuid } });
        expect(Object.keys(res.json()).sort()).toEqual(FIELDS);
      }
    },
  );

  it('keeps the acting owner an owner after making another owner (several owners are fine)', async () => {
    const p = await pair('owner', 'admin');
    expect((await h.request('PATCH', p.url, { key: p.actor.key, body: { level: OWNER } })).statusCode).toBe(
      200,
    );
    const owners = (
      await h.request('GET', `${p.org.base}/members/?order=-level`, { key: p.actor.key })
    ).json();
    expect(owners.results.filter((m: { level: number }) => m.level === OWNER)).toHaveLength(2);
  });

  it.each(['member', 'admin', 'owner'] as const)(
    'PATCH: a %s cannot change their own level',
    async (role) => {
      const p = await pair(role, 'member');
      for (const who of ['@me', p.actor.user.uuid]) {
        for (const level of [MEMBER, ADMIN, OWNER]) {
          const res = await h.request('PATCH', `${p.org.base}/members/${who}/`, {
            key: p.actor.key,
            body: { level },
          });
          expectReply(res, 403, OWN_LEVEL);
        }
      }
      const me = await h.request('PATCH', `${p.org.base}/members/@me/`, { key: p.actor.key, body: {} });
      expect(me.json()).toMatchObject({ level: LEVEL[role], user: { uuid: p.actor.user.uuid } });
    },
  );

  it('validates the level only once the caller may act on the member', async () => {
    const p = await pair('owner', 'member');
    for (const [level, error] of [
      [5, invalid('"5" is not a valid choice. Choose one of: 1, 8, 15.', 'level', 'invalid_choice')],
      ['8', invalid('A valid integer is required.', 'level')],
      [null, invalid('This field may not be null.', 'level', 'null')],
    ] as const) {
      expectReply(await h.request('PATCH', p.url, { key: p.actor.key, body: { level } }), 400, error);
    }
    const q = await pair('member', 'member');
    expectReply(await h.request('PATCH', q.url, { key: q.actor.key, body: { level: 5 } }), 403, NOT_ADMIN);
  });

  // Actor removing another member.
  const DELETE_MATRIX: Array<[Role, Role, number, object | null]> = [
    ['member', 'member', 403, NOT_ADMIN],
    ['member', 'admin', 403, NOT_ADMIN],
    ['member', 'owner', 403, NOT_ADMIN],
    ['admin', 'member', 204, null],
    ['admin', 'admin', 204, null],
    ['admin', 'owner', 403, ABOVE_YOU],
    ['owner', 'member', 204, null],
    ['owner', 'admin', 204, null],
    ['owner', 'owner', 400, OWNER_LEAVES],
  ];

  it.each(DELETE_MATRIX)('DELETE: %s removes a %s → %i', async (actor, target, status, error) => {
    const p = await pair(actor, target);
    const res = await h.request('DELETE', p.url, { key: p.actor.key });
    const members = `${p.org.base}/members/?email=${encodeURIComponent(p.target.user.email)}`;
    const remaining = async () => (await h.request('GET', members, { key: p.org.owner.key })).json().count;
    if (error) {
      expectReply(res, status, error);
      expect(await remaining()).toBe(1);
    } else {
      expect({ status: res.statusCode, body: res.body }).toEqual({ status, body: '' });
      expect(await remaining()).toBe(0);
    }
  });

  it.each(['member', 'admin'] as const)('a %s may leave, by @me or by their own uuid', async (role) => {
    for (const who of ['@me', 'uuid']) {
      const p = await pair(role, 'member');
      const path = who === '@me' ? '@me' : p.actor.user.uuid;
      const res = await h.request('DELETE', `${p.org.base}/members/${path}/`, { key: p.actor.key });
      expect({ status: res.statusCode, body: res.body }).toEqual({ status: 204, body: '' });
      expectReply(await h.request('GET', `${p.org.base}/members/`, { key: p.actor.key }), 403, DENIED);
    }
  });

  it('an owner cannot leave, even with another owner around', async () => {
    const p = await pair('owner', 'owner');
    for (const who of ['@me', p.actor.user.uuid]) {
      const res = await h.request('DELETE', `${p.org.base}/members/${who}/`, { key: p.actor.key });
      expectReply(res, 400, OWNER_LEAVES);
    }
  });

  it('cuts a removed member off the organization at once, keys and current organization alike', async () => {
    const org = await organization(h);
    const elsewhere = await h.owner('Their own');
    // The member also belongs to another organization, which becomes their current one.
    await insertMembership(h.stores.meta.db, {
      id: crypto.randomUUID(),
      organizationId: elsewhere.organizationId,
      userId: org.member.user.id,
      level: MEMBER,
      joinedAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
    });
    await setUserCurrent(h.stores.meta.db, org.member.user.id, {
      organizationId: org.orgId,
      teamId: org.owner.projectId,
    });
    const key = org.member.key;
    // Warm the key cache, then remove.
    expect((await h.request('GET', '/api/organizations/@current/', { key })).json().id).toBe(org.orgId);
    expect((await h.request('GET', `/api/projects/${org.owner.projectId}/`, { key })).statusCode).toBe(200);
    const res = await h.request('DELETE', `${org.base}/members/${org.member.user.uuid}/`, {
      key: org.admin.key,
    });
    expect(res.statusCode).toBe(204);
    expectReply(await h.request('GET', `${org.base}/members/`, { key }), 403, DENIED);
    expectReply(await h.request('GET', `/api/projects/${org.owner.projectId}/`, { key }), 403, DENIED);
    expect((await h.request('GET', '/api/organizations/@current/', { key })).json().id).toBe(
      elsewhere.organizationId,
    );
    const me = (await h.request('GET', '/api/users/@me/', { key })).json();
    expect(me.organization.id).toBe(elsewhere.organizationId);
    expect(me.team.id).toBe(elsewhere.projectId);
  });

  it('answers 404 for unknown, malformed and foreign members, 403 for another organization', async () => {
    const org = await organization(h);
    const other = await h.owner('Other');
    for (const who of [crypto.randomUUID(), 'not-a-uuid', other.user.uuid]) {
      for (const method of ['PATCH', 'DELETE']) {
        const res = await h.request(method, `${org.base}/members/${who}/`, {
          key: org.owner.key,
          body: method === 'PATCH' ? { level: MEMBER } : undefined,
        });
        expectReply(res, 404, NOT_FOUND);
      }
    }
    const foreign = `/api/organizations/${other.organizationId}/members/`;
    expectReply(await h.request('GET', foreign, { key: org.owner.key }), 403, DENIED);
    expectReply(
      await h.request('DELETE', `${foreign}${other.user.uuid}/`, { key: org.owner.key }),
      403,
      DENIED,
    );
    expectReply(
      await h.request('PATCH', `${foreign}${other.user.uuid}/`, { key: org.owner.key, body: { level: 1 } }),
      403,
      DENIED,
    );
  });

  it('needs organization_member:read to list and organization_member:write to change', async () => {
    const org = await organization(h);
    const reader = await h.user({
      organizationId: org.orgId,
      level: OWNER,
      key: { scopes: ['organization_member:read'] },
    });
    expect((await h.request('GET', `${org.base}/members/`, { key: reader.key })).statusCode).toBe(200);
    const missing = denied("API key missing required scope 'organization_member:write'");
    const url = `${org.base}/members/${org.member.user.uuid}/`;
    expectReply(await h.request('PATCH', url, { key: reader.key, body: { level: ADMIN } }), 403, missing);
    expectReply(await h.request('DELETE', url, { key: reader.key }), 403, missing);
    expect((await h.request('GET', `${org.base}/members/`, { key: null })).statusCode).toBe(401);
  });
});
