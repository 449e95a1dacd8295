import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN } from '../../src/domain/organizations/levels.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { organization } from '../helpers/org-access.js';
import { type SmtpSink, startSmtpServer } from '../helpers/smtp-server.js';

const SITE = 'https://analytics.example.com';

describe(`invite emails over real SMTP (${backend})`, () => {
  let h: Harness;
  let smtp: SmtpSink;
  let org: Awaited<ReturnType<typeof organization>>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    h = await startHarness({
      SMTP_URL: smtp.url,
      EMAIL_FROM: 'Burrow <noreply@example.com>',
      SITE_URL: `${SITE}/`,
    });
    org = await organization(h);
  });
  afterAll(async () => {
    await h?.close();
    await smtp?.close();
  });

  it('mails the invitee the accept link, from EMAIL_FROM with Reply-To the inviter', async () => {
    const before = smtp.received.length;
    const res = await h.request('POST', `${org.base}/invites/`, {
      key: org.owner.key,
      body: {
        target_email: 'Ada@Example.com',
        first_name: 'Ada',
        level: ADMIN,
        message: 'Welcome aboard!\nSee you.',
      },
    });
    expect(res.statusCode).toBe(201);
    const invite = res.json();
    expect(invite.emailing_attempt_made).toBe(true);
    // Mailed: the link went to the invitee only, not back to the inviter.
    expect(invite.invite_url).toBeUndefined();
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    expect(mail!.to).toEqual(['Ada@example.com']);
    expect(mail!.from).toBe('noreply@example.com');
    expect(mail!.headers.from).toBe('Burrow <noreply@example.com>');
    expect(mail!.headers['reply-to']).toBe(org.owner.user.email);
    expect(mail!.headers.subject).toBe(`Test User invited you to join Acme on Burrow`);
    const link = `${SITE}/api/signup/${invite.id}/`;
    expect(mail!.text).toContain(`  ${link}\n`);
    expect(mail!.text).toContain('Hi Ada,');
    expect(mail!.text).toContain('as administrator');
    expect(mail!.text).toContain('> Welcome aboard!\n> See you.');

    // The link and the token in the mail are the way in: the invitee signs up there and is a member.
    const token = /^ {2}token: (\S+)$/m.exec(mail!.text)?.[1];
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(mail!.text).toContain(`"token": "${token}"`);
    expect(JSON.stringify(invite)).not.toContain(token);
    const path = new URL(link).pathname;
    const signup = await h.request('POST', path, {
      key: null,
      body: { token, first_name: 'Ada', password: 'analytical engine' },
    });
    expect(signup.statusCode).toBe(201);
    expect(signup.json()).toMatchObject({
      email: 'ada@example.com',
      level: ADMIN,
      organization_id: org.orgId,
    });
  });

  it('sends nothing when send_email is false, and one mail per bulk invite', async () => {
    const before = smtp.received.length;
    const quiet = await h.request('POST', `${org.base}/invites/`, {
      key: org.member.key,
      body: { target_email: 'quiet@example.com', send_email: false },
    });
    expect(quiet.json().emailing_attempt_made).toBe(false);
    expect(quiet.json().invite_url).toMatch(new RegExp(`^${SITE}/signup/${quiet.json().id}#token=`));
    const bulk = await h.request('POST', `${org.base}/invites/bulk/`, {
      key: org.member.key,
      body: [{ target_email: 'one@example.com' }, { target_email: 'two@example.com' }],
    });
    expect(bulk.json().map((i: { emailing_attempt_made: boolean }) => i.emailing_attempt_made)).toEqual([
      true,
      true,
    ]);
    const mails = (await smtp.waitFor(before + 2)).slice(before);
    expect(mails.flatMap((m) => m.to).sort()).toEqual(['one@example.com', 'two@example.com']);
    // Had the quiet invite been mailed, it would have arrived with or before the bulk ones.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(smtp.received.slice(before).flatMap((m) => m.to)).not.toContain('quiet@example.com');
    const ids = bulk.json().map((i: { id: string }) => i.id);
    for (const mail of mails)
      expect(ids.some((id: string) => mail.text.includes(`${SITE}/api/signup/${id}/`))).toBe(true);
  });
});

// A harness of its own (chDB allows one per process, so after the one above has closed).
describe('invite emails with the mail server gone', () => {
  it('keeps the invite, and says an attempt was made', async () => {
    const dead = await startSmtpServer();
    await dead.close();
    const other = await startHarness({ SMTP_URL: dead.url });
    try {
      const o = await organization(other);
      const res = await other.request('POST', `${o.base}/invites/`, {
        key: o.owner.key,
        body: { target_email: 'lost@example.com' },
      });
      expect(res.statusCode).toBe(201);
      expect(res.json().emailing_attempt_made).toBe(true);
      const listed = await other.request('GET', `${o.base}/invites/`, { key: o.owner.key });
      expect(listed.json().count).toBe(1);
    } finally {
      await other.close();
    }
  });
});
