import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { hashPassword, verifyPassword } from '../../src/domain/accounts/passwords.js';
import { mergeGrants, normalizeEmail } from '../../src/domain/organizations/invite-rules.js';
import { inviteEmail } from '../../src/domain/organizations/mail.js';
import type { InviteRecord } from '../../src/store/meta/invites.js';
import type { OrganizationRecord } from '../../src/store/meta/organizations.js';
import type { UserRecord } from '../../src/store/meta/users.js';
import { memoryCounters, redisCounters } from '../../src/store/shared/counters.js';

describe('passwords', () => {
  it('hashes with scrypt and a per-password salt, and verifies', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(hash).toMatch(/^scrypt\$32768\$8\$3\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(await hashPassword('correct horse battery')).not.toBe(hash);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse batterY', hash)).toBe(false);
    expect(await verifyPassword('', hash)).toBe(false);
  });

  it('treats missing, malformed and hostile hashes as a mismatch', async () => {
    const hash = await hashPassword('pw12345678');
    const [, , , , salt, key] = hash.split('$');
    for (const stored of [
      null,
      undefined,
      '',
      'pbkdf2_sha256$1$x$y',
      `scrypt$1073741824$8$1$${salt}$${key}`, // would need 1 TiB
      `scrypt$1000$8$1$${salt}$${key}`, // N not a power of two
      `scrypt$32768$8$3$${salt}$AAAA`,
    ]) {
      expect(await verifyPassword('pw12345678', stored)).toBe(false);
    }
  });

  it('normalises Unicode, so the same password typed differently still matches', async () => {
    const hash = await hashPassword('caf\u00e9 au lait');
    expect(await verifyPassword('cafe\u0301 au lait', hash)).toBe(true);
  });
});

describe('rate limit counters', () => {
  it('count within a fixed window and start over after it (memory)', async () => {
    let now = 0;
    const counters = memoryCounters(() => now);
    expect(await counters.hit('a', 1000)).toEqual({ count: 1, resetInMs: 1000 });
    now = 400;
    expect(await counters.hit('a', 1000)).toEqual({ count: 2, resetInMs: 600 });
    expect((await counters.hit('b', 1000)).count).toBe(1);
    now = 1000;
    expect(await counters.hit('a', 1000)).toEqual({ count: 1, resetInMs: 1000 });
    await counters.close();
  });

  it.skipIf(!process.env.REDIS_URL)('are shared between nodes through Redis', async () => {
    const prefix = `burrow-test-${process.pid}-${Date.now()}:`;
    const one = await redisCounters(process.env.REDIS_URL!, prefix);
    const two = await redisCounters(process.env.REDIS_URL!, prefix);
    try {
      expect((await one.hit('login:x', 5000)).count).toBe(1);
      const second = await two.hit('login:x', 5000);
      expect(second.count).toBe(2);
      expect(second.resetInMs).toBeGreaterThan(4000);
      expect(second.resetInMs).toBeLessThanOrEqual(5000);
      expect((await two.hit('login:y', 5000)).count).toBe(1);
      await new Promise((r) => setTimeout(r, 150));
      expect((await one.hit('login:short', 100)).count).toBe(1);
      await new Promise((r) => setTimeout(r, 150));
      expect((await one.hit('login:short', 100)).count).toBe(1);
    } finally {
      await one.close();
      await two.close();
    }
  });
});

describe('invite rules', () => {
  it('lowercases only the domain part of an address', () => {
    expect(normalizeEmail('  Ada.Lovelace@Example.COM ')).toBe('Ada.Lovelace@example.com');
  });

  it('merges project grants: new ones first, highest level per project', () => {
    const merged = mergeGrants(
      [
        { id: 2, level: 'member' },
        { id: 1, level: 'member' },
      ],
      [
        [{ id: 1, level: 8 }],
        [
          { id: 3, level: 'admin' },
          { id: 2, level: 'none' },
        ],
      ],
    );
    expect(merged).toEqual([
      { id: 2, level: 'member' },
      { id: 1, level: 8 },
      { id: 3, level: 'admin' },
    ]);
  });

  it('keeps names typed by users out of the email headers', () => {
    const at = '2024-01-01T00:00:00.000Z';
    const invite = {
      id: 'a0000000-0000-4000-8000-000000000000',
      targetEmail: 'x@example.com',
      firstName: 'X',
      level: 1,
      message: null,
      createdAt: at,
    } as InviteRecord;
    const org = { name: 'Evil\r\nBcc: victim@example.com' } as OrganizationRecord;
    const inviter = { firstName: 'Mal\nlory', lastName: '', email: 'm@example.com' } as UserRecord;
    const email = inviteEmail(invite, 'the-token', org, inviter, 'https://burrow.example.com/');
    expect(email.subject).toBe('Mal lory invited you to join Evil Bcc: victim@example.com on Burrow');
    expect(email.text).toContain(`https://burrow.example.com/api/signup/${invite.id}/`);
    expect(email.text).toContain('expires on Thu, 04 Jan 2024 00:00:00 GMT');
  });
});

describe('configuration of domains, invites and login', () => {
  it('has defaults', () => {
    expect(loadConfig({})).toMatchObject({
      siteUrl: undefined,
      smtpUrl: undefined,
      emailFrom: 'Burrow <burrow@localhost>',
      dnsServers: undefined,
      dnsTimeoutMs: 3000,
      loginMaxAttempts: 10,
      loginWindowSeconds: 900,
    });
  });

  it('reads every variable', () => {
    expect(
      loadConfig({
        SITE_URL: 'https://burrow.example.com/',
        SMTP_URL: 'smtps://user:pass@mail.example.com:465',
        EMAIL_FROM: 'Analytics <noreply@example.com>',
        DNS_SERVERS: '10.0.0.53, [::1]:5353',
        DNS_TIMEOUT_MS: '500',
        LOGIN_MAX_ATTEMPTS: '5',
        LOGIN_WINDOW_SECONDS: '60',
      }),
    ).toMatchObject({
      siteUrl: 'https://burrow.example.com',
      smtpUrl: 'smtps://user:pass@mail.example.com:465',
      emailFrom: 'Analytics <noreply@example.com>',
      dnsServers: ['10.0.0.53', '[::1]:5353'],
      dnsTimeoutMs: 500,
      loginMaxAttempts: 5,
      loginWindowSeconds: 60,
    });
  });

  it.each([
    [{ SITE_URL: 'ftp://x' }, /SITE_URL/],
    [{ SMTP_URL: 'http://mail' }, /SMTP_URL/],
    [{ EMAIL_FROM: 'nobody' }, /EMAIL_FROM/],
    [{ DNS_SERVERS: 'dns.example.com' }, /DNS_SERVERS/],
    [{ DNS_SERVERS: '1.1.1.1:70000' }, /DNS_SERVERS/],
    [{ DNS_TIMEOUT_MS: '0' }, /DNS_TIMEOUT_MS/],
    [{ LOGIN_MAX_ATTEMPTS: '0' }, /LOGIN_MAX_ATTEMPTS/],
    [{ LOGIN_WINDOW_SECONDS: 'soon' }, /LOGIN_WINDOW_SECONDS/],
  ])('rejects %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
