import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfTokenFor } from '../../src/domain/accounts/login-sessions.js';
import { reissueInviteToken } from '../../src/domain/organizations/invite-token.js';
import { ADMIN } from '../../src/domain/organizations/levels.js';
import { NOT_FOUND, UUID } from '../helpers/bodies.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { expectReply, invalid, organization } from '../helpers/org-access.js';

const DAY = 86_400_000;
const NOT_AUTHENTICATED = {
  type: 'authentication_error',
  code: 'not_authenticated',
  detail: 'Authentication credentials were not provided.',
  attr: null,
};
let seq = 0;
const address = () => `new${seq++}.${Date.now()}@example.com`;

/** `burrow_session=<value>` from a response's Set-Cookie, with its attributes. */
function sessionCookie(res: LightMyRequestResponse) {
  const header = [res.headers['set-cookie']].flat().find((c) => c?.startsWith('burrow_session='));
  expect(header).toBeDefined();
  return { cookie: header!.split(';')[0]!, attributes: header! };
}

describe(`signup through an invite, login and sessions (${backend})`, () => {
  let h: Harness;
  let offset = 0;
  let org: Awaited<ReturnType<typeof organization>>;

  beforeAll(async () => {
    h = await startHarness({ LOGIN_MAX_ATTEMPTS: '4' }, { now: () => new Date(Date.now() + offset) });
    org = await organization(h);
  });
  afterAll(async () => {
    await h?.close();
  });

  async function invite(body: object = {}) {
    const target_email = address();
    const res = await h.request('POST', `${org.base}/invites/`, {
      key: org.owner.key,
      body: { target_email, ...body },
    });
    expect(res.statusCode).toBe(201);
    return { id: res.json().id as string, email: target_email };
  }
  /** Accepts with the invite's token (issued as the operator's `invites link` does) unless the body has one. */
  const signup = async (id: string, body: object, headers: Record<string, string> = {}) => {
    const token = 'token' in body ? null : await reissueInviteToken(h.deps, id);
    return h.request('POST', `/api/signup/${id}/`, {
      key: null,
      body: token ? { token, ...body } : body,
      headers,
    });
  };
  const login = (email: string, password: string, ip = '10.0.0.1') =>
    h.app.inject({ method: 'POST', url: '/api/login/', payload: { email, password }, remoteAddress: ip });
  // The console's requests: the session cookie, and on unsafe methods the CSRF header derived from it.
  const withCookie = (method: string, url: string, cookie: string, body?: unknown) => {
    const token = cookie.startsWith('burrow_session=') ? cookie.slice('burrow_session='.length) : '';
    const csrf: Record<string, string> = method === 'GET' ? {} : { 'x-csrftoken': csrfTokenFor(token) };
    return h.request(method, url, { key: null, headers: { cookie, ...csrf }, body });
  };

  it('creates the account and membership at the invited level and project access, logged in', async () => {
    const { id, email } = await invite({
      level: ADMIN,
      first_name: 'Grace',
      private_project_access: [{ id: org.owner.projectId, level: 'admin' }],
    });
    const info = await h.request('GET', `/api/signup/${id}/`, { key: null });
    expect(info.json()).toMatchObject({
      id,
      target_email: email,
      first_name: 'Grace',
      organization_name: 'Acme',
      level: 8,
    });
    const res = await signup(id, { first_name: 'Grace', last_name: 'Hopper', password: 'correct horse' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      email,
      first_name: 'Grace',
      last_name: 'Hopper',
      organization_id: org.orgId,
      level: 8,
    });
    expect(res.json().uuid).toMatch(UUID);
    const { cookie, attributes } = sessionCookie(res);
    expect(attributes).toMatch(/HttpOnly/i);
    expect(attributes).toMatch(/SameSite=Lax/i);
    expect(attributes).toMatch(/Path=\//);

    const members = (
      await h.request('GET', `${org.base}/members/?email=${encodeURIComponent(email)}`, {
        key: org.owner.key,
      })
    ).json();
    expect(members.results[0]).toMatchObject({ level: ADMIN, user: { email } });
    const access = await h.stores.meta.db
      .selectFrom('member_project_access')
      .selectAll()
      .where('membership_id', '=', members.results[0].id)
      .execute();
    expect(access).toEqual([
      { membership_id: members.results[0].id, team_id: org.owner.projectId, level: 'admin' },
    ]);
    // The invite is used up: gone from the list, refused a second time.
    const listed = (await h.request('GET', `${org.base}/invites/`, { key: org.owner.key })).json();
    expect(listed.results.map((i: { id: string }) => i.id)).not.toContain(id);
    const used = invalid('This invite has already been used.', null, 'already_used');
    expectReply(await signup(id, { first_name: 'X', password: 'another one' }), 400, used);
    expectReply(await h.request('GET', `/api/signup/${id}/`, { key: null }), 400, used);

    // The session mints a key, which then works on its own.
    const minted = await withCookie('POST', '/api/personal_api_keys/', cookie, {
      label: 'mine',
      scopes: ['*'],
    });
    expect(minted.statusCode).toBe(201);
    const key = minted.json().value as string;
    const me = (await h.request('GET', '/api/users/@me/', { key })).json();
    expect(me).toMatchObject({ email, has_password: true, organization: { id: org.orgId } });
    expect((await h.request('GET', `${org.base}/members/`, { key })).statusCode).toBe(200);
  });

  it('refuses unknown, malformed, expired and mismatched invites, and existing accounts', async () => {
    const bad = invalid('The provided invite ID is not valid.');
    expectReply(await signup(crypto.randomUUID(), { first_name: 'A', password: 'password1' }), 400, bad);
    expectReply(await signup('nope', { first_name: 'A', password: 'password1' }), 400, bad);
    expectReply(await h.request('GET', '/api/signup/nope/', { key: null }), 400, bad);

    const old = await (async () => {
      offset = -3 * DAY - 60_000;
      try {
        return await invite();
      } finally {
        offset = 0;
      }
    })();
    const expired = invalid('This invite has expired. Ask the organization for a new one.', null, 'expired');
    expectReply(await signup(old.id, { first_name: 'A', password: 'password1' }), 400, expired);

    const { id, email } = await invite();
    expectReply(
      await signup(id, { first_name: 'A', password: 'password1', email: 'someone.else@example.com' }),
      400,
      invalid('This invite is for another email address.', null, 'invalid_recipient'),
    );
    expectReply(
      await signup(id, { password: 'password1' }),
      400,
      invalid('This field is required.', 'first_name', 'required'),
    );
    expectReply(
      await signup(id, { first_name: '  ', password: 'password1' }),
      400,
      invalid('This field may not be blank.', 'first_name', 'blank'),
    );
    expectReply(
      await signup(id, { first_name: 'A' }),
      400,
      invalid('This field is required.', 'password', 'required'),
    );
    expectReply(
      await signup(id, { first_name: 'A', password: 'short' }),
      400,
      invalid('Ensure this field has at least 8 characters.', 'password', 'min_length'),
    );
    expectReply(
      await signup(id, { first_name: 'A', password: 12345678 }),
      400,
      invalid('Not a valid string.', 'password'),
    );
    // The address matches whatever its case.
    expect(
      (await signup(id, { first_name: 'A', password: 'password1', email: email.toUpperCase() })).statusCode,
    ).toBe(201);

    // An existing account must log in first.
    const again = await h.owner('Second');
    const second = await h.request('POST', `/api/organizations/${again.organizationId}/invites/`, {
      key: again.key,
      body: { target_email: email },
    });
    expectReply(
      await signup(second.json().id, { first_name: 'A', password: 'password1' }),
      400,
      invalid(
        'An account with this email address already exists. Log in, then accept the invite with that session.',
        null,
        'account_exists',
      ),
    );
    const { cookie } = sessionCookie(await login(email, 'password1', '10.0.9.1'));
    const joined = await signup(second.json().id, {}, { cookie });
    expect(joined.statusCode).toBe(201);
    expect(joined.json()).toMatchObject({ email, organization_id: again.organizationId, level: 1 });
    expect(joined.headers['set-cookie']).toBeUndefined();
    // A session for another address cannot take someone else's invite.
    const third = await invite();
    expectReply(
      await signup(third.id, {}, { cookie }),
      400,
      invalid('This invite is for another email address.', null, 'invalid_recipient'),
    );
  });

  it('logs in with email and password; the cookie works across the API, as for PostHog web sessions', async () => {
    const { id, email } = await invite();
    await signup(id, { first_name: 'Lin', password: 'open sesame' });
    const failed = invalid('Invalid email or password.', null, 'invalid_credentials');
    expectReply(await login(email, 'wrong password', '10.0.1.1'), 400, failed);
    expectReply(await login('nobody@example.com', 'open sesame', '10.0.1.2'), 400, failed);
    // The bootstrap owner has no password: no login at all.
    expectReply(await login(h.boot.user_email, '', '10.0.1.3'), 400, failed);

    const res = await login(email.toUpperCase(), 'open sesame', '10.0.1.4');
    expectReply(res, 200, { success: true });
    const { cookie } = sessionCookie(res);
    const keys = await withCookie('GET', '/api/personal_api_keys/', cookie);
    expectReply(keys, 200, []);
    const made = await withCookie('POST', '/api/personal_api_keys/', cookie, {
      label: 'ci',
      scopes: ['organization:read'],
    });
    expect(made.statusCode).toBe(201);
    expect((await withCookie('GET', `/api/personal_api_keys/${made.json().id}/`, cookie)).statusCode).toBe(
      200,
    );
    expect(
      (await withCookie('POST', `/api/personal_api_keys/${made.json().id}/roll/`, cookie)).statusCode,
    ).toBe(200);
    expect((await withCookie('DELETE', `/api/personal_api_keys/${made.json().id}/`, cookie)).statusCode).toBe(
      204,
    );
    // Everywhere else too, within the user's memberships.
    expect((await withCookie('GET', '/api/organizations/', cookie)).statusCode).toBe(200);
    expect((await withCookie('GET', `${org.base}/members/`, cookie)).statusCode).toBe(200);
    // A key, when sent, decides: here a restricted key refuses what the session could do.
    const restricted = await h.user({ key: { scopes: ['organization:read'] } });
    const both = await h.request('GET', '/api/personal_api_keys/', {
      key: restricted.key,
      headers: { cookie },
    });
    expect(both.statusCode).toBe(403);
    // A forged or unknown cookie is no session.
    expectReply(
      await withCookie('GET', '/api/personal_api_keys/', 'burrow_session=forged'),
      401,
      NOT_AUTHENTICATED,
    );

    const out = await withCookie('POST', '/api/logout/', cookie);
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/burrow_session=;/);
    expectReply(await withCookie('GET', '/api/personal_api_keys/', cookie), 401, NOT_AUTHENTICATED);
    expectReply(await h.request('POST', '/api/logout/', { key: null }), 401, NOT_AUTHENTICATED);
  });

  it('ends sessions after 14 days', async () => {
    const { id, email } = await invite();
    await signup(id, { first_name: 'Old', password: 'long enough' });
    const { cookie } = sessionCookie(await login(email, 'long enough', '10.0.2.1'));
    expect((await withCookie('GET', '/api/personal_api_keys/', cookie)).statusCode).toBe(200);
    offset = 14 * DAY + 60_000;
    try {
      expectReply(await withCookie('GET', '/api/personal_api_keys/', cookie), 401, NOT_AUTHENTICATED);
    } finally {
      offset = 0;
    }
  });

  it('limits failed login attempts per address and client, then blocks even the right password', async () => {
    const { id, email } = await invite();
    await signup(id, { first_name: 'Rate', password: 'right password' });
    for (let i = 0; i < 4; i++) expect((await login(email, `wrong ${i}`, '10.1.0.1')).statusCode).toBe(400);
    const blocked = await login(email, 'right password', '10.1.0.1');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({ type: 'throttled_error', code: 'throttled', attr: null });
    expect(blocked.json().detail).toMatch(/^Request was throttled\. Expected available in \d+ seconds?\.$/);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(800);
    // One client trying many addresses is limited too.
    for (let i = 0; i < 4; i++)
      expect((await login(`guess${i}@example.com`, 'x', '10.2.0.1')).statusCode).toBe(400);
    expect((await login('guess9@example.com', 'x', '10.2.0.1')).statusCode).toBe(429);
  });

  it('refuses malformed login bodies', async () => {
    const post = (payload: unknown) =>
      h.app.inject({ method: 'POST', url: '/api/login/', payload: payload as object });
    expectReply(
      await post({ email: 'a@b.c' }),
      400,
      invalid('This field is required.', 'password', 'required'),
    );
    expectReply(await post({ password: 'x' }), 400, invalid('This field is required.', 'email', 'required'));
    expectReply(await post({ email: 5, password: 'x' }), 400, invalid('Not a valid string.', 'email'));
    expect((await h.request('GET', '/api/login/', { key: null })).statusCode).toBe(405);
    expectReply(await h.request('GET', '/api/signup/', { key: null }), 404, NOT_FOUND);
  });
});
