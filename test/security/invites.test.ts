import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reissueInviteToken } from '../../src/domain/organizations/invite-token.js';
import { ADMIN, MEMBER } from '../../src/domain/organizations/levels.js';
import { findInvite } from '../../src/store/meta/invites.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { organization } from '../helpers/org-access.js';
import { type SmtpSink, startSmtpServer } from '../helpers/smtp-server.js';

const tokenIn = (text: string) => /^ {2}token: (\S+)$/m.exec(text)?.[1];

/**
 * The review's finding: members list invites with their ids, and the id alone accepted an invite,
 * so a level-1 member created a level-8 account for someone else's address. Acceptance now needs
 * the secret only the invite email carries.
 */
describe(`invite acceptance needs the emailed secret (${backend})`, () => {
  let h: Harness;
  let smtp: SmtpSink;
  let org: Awaited<ReturnType<typeof organization>>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    h = await startHarness({ SMTP_URL: smtp.url, SITE_URL: 'https://burrow.example.com' });
    org = await organization(h);
  });
  afterAll(async () => {
    await h?.close();
    await smtp?.close();
  });

  async function ownerInvites(target_email: string, level = ADMIN) {
    const before = smtp.received.length;
    const res = await h.request('POST', `${org.base}/invites/`, {
      key: org.owner.key,
      body: { target_email, level },
    });
    expect(res.statusCode).toBe(201);
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    return { created: res, id: res.json().id as string, token: tokenIn(mail!.text)! };
  }
  const accept = (id: string, body: object, headers: Record<string, string> = {}) =>
    h.request('POST', `/api/signup/${id}/`, { key: null, body, headers });

  it('a member who lists an admin invite cannot accept it: the id is no credential', async () => {
    const { created, id, token } = await ownerInvites('cfo@example.com');
    const listed = await h.request('GET', `${org.base}/invites/`, { key: org.member.key });
    expect(listed.statusCode).toBe(200);
    const item = listed.json().results.find((i: { id: string }) => i.id === id);
    expect(item).toMatchObject({ id, target_email: 'cfo@example.com', level: ADMIN });
    // The secret is in no response: not the listing, not the creation.
    expect(listed.body).not.toContain(token);
    expect(created.body).not.toContain(token);
    expect(Object.keys(item)).not.toContain('token');
    expect(Object.keys(item)).not.toContain('token_hash');
    // Stored hashed: the store never holds the token itself.
    const stored = await findInvite(h.stores.meta.db, id);
    expect(stored?.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(token);

    const body = { first_name: 'Mallory', password: 'any password at all' };
    const noToken = await accept(id, body);
    expect({ status: noToken.statusCode, body: noToken.json() }).toEqual({
      status: 400,
      body: { type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'token' },
    });
    for (const wrong of ['x', id, 'A'.repeat(43), token.slice(0, -1), `${token}x`]) {
      const res = await accept(id, { ...body, token: wrong });
      expect({ status: res.statusCode, body: res.json() }).toMatchObject({
        status: 400,
        body: { type: 'validation_error', code: 'invalid_token', attr: 'token' },
      });
    }
    // Nothing was created by the attempts; the invitee's own token still works.
    const login = await h.app.inject({
      method: 'POST',
      url: '/api/login/',
      payload: { email: 'cfo@example.com', password: body.password },
    });
    expect(login.statusCode).not.toBe(200);
    const ok = await accept(id, { token, first_name: 'Carol', password: 'her own password' });
    expect(ok.statusCode).toBe(201);
    expect(ok.json()).toMatchObject({ email: 'cfo@example.com', level: ADMIN });
  });

  it('a logged-in account joins only with the token too', async () => {
    const { id: first, token: firstToken } = await ownerInvites('dana@example.com', MEMBER);
    const joined = await accept(first, { token: firstToken, first_name: 'Dana', password: 'dana password' });
    expect(joined.statusCode).toBe(201);
    const cookie = String([joined.headers['set-cookie']].flat()[0]).split(';')[0]!;
    // A second organization invites the same address; Dana's session alone is not enough.
    const other = await h.owner('Other');
    const before = smtp.received.length;
    const inv = await h.request('POST', `/api/organizations/${other.organizationId}/invites/`, {
      key: other.key,
      body: { target_email: 'dana@example.com' },
    });
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    const res = await accept(inv.json().id, {}, { cookie });
    expect({ status: res.statusCode, attr: res.json().attr }).toEqual({ status: 400, attr: 'token' });
    const ok = await accept(inv.json().id, { token: tokenIn(mail!.text) }, { cookie });
    expect(ok.statusCode).toBe(201);
  });

  it('the operator can re-issue the secret (no email sent); the old one stops working', async () => {
    const { id, token } = await ownerInvites('erin@example.com', MEMBER);
    const fresh = await reissueInviteToken(h.deps, id);
    expect(fresh).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const old = await accept(id, { token, first_name: 'E', password: 'erin password' });
    expect(old.json()).toMatchObject({ code: 'invalid_token' });
    expect((await accept(id, { token: fresh, first_name: 'E', password: 'erin password' })).statusCode).toBe(
      201,
    );
    expect(await reissueInviteToken(h.deps, id)).toBeNull(); // used: nothing to re-issue
  });

  it('an invite made before tokens existed cannot be accepted', async () => {
    const { id } = await ownerInvites('legacy@example.com', MEMBER);
    await h.stores.meta.db
      .updateTable('organization_invites')
      .set({ token_hash: null })
      .where('id', '=', id)
      .execute();
    const res = await accept(id, { token: 'anything', first_name: 'L', password: 'legacy password' });
    expect(res.json()).toMatchObject({ code: 'invalid_token' });
  });

  it('combine_pending_invites by a member cannot re-issue an admin invite at the combined level', async () => {
    const { id } = await ownerInvites('frank@example.com', ADMIN);
    const res = await h.request('POST', `${org.base}/invites/`, {
      key: org.member.key,
      body: { target_email: 'frank@example.com', level: MEMBER, combine_pending_invites: true },
    });
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 403,
      body: {
        type: 'authentication_error',
        code: 'permission_denied',
        detail: 'You cannot invite a user with a higher permission level than your own.',
        attr: null,
      },
    });
    // Nothing changed: the owner's invite is still there, untouched.
    expect(await findInvite(h.stores.meta.db, id)).toMatchObject({ level: ADMIN, acceptedAt: null });
    // Bulk takes the same path.
    const bulk = await h.request('POST', `${org.base}/invites/bulk/`, {
      key: org.member.key,
      body: [{ target_email: 'frank@example.com', level: MEMBER, combine_pending_invites: true }],
    });
    expect(bulk.statusCode).toBe(403);
    // An admin may combine up to their own level.
    const byAdmin = await h.request('POST', `${org.base}/invites/`, {
      key: org.admin.key,
      body: { target_email: 'frank@example.com', level: MEMBER, combine_pending_invites: true },
    });
    expect({ status: byAdmin.statusCode, level: byAdmin.json().level }).toEqual({
      status: 201,
      level: ADMIN,
    });
  });
});
