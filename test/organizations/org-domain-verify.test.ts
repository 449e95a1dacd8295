import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsServer, startDnsServer } from '../helpers/dns-server.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { expectReply, invalid, organization } from '../helpers/org-access.js';

let seq = 0;

describe(`domain verification over real DNS (${backend})`, () => {
  let h: Harness;
  let dns: DnsServer;
  let org: Awaited<ReturnType<typeof organization>>;

  beforeAll(async () => {
    dns = await startDnsServer();
    h = await startHarness({ DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '200' });
    org = await organization(h);
  });
  afterAll(async () => {
    await h?.close();
    await dns?.close();
  });

  /** A new domain and the name its challenge is published under. */
  async function domain() {
    const name = `verify${Date.now().toString(36)}${seq++}.example.org`;
    const res = await h.request('POST', `${org.base}/domains/`, {
      key: org.owner.key,
      body: { domain: name },
    });
    expect(res.statusCode).toBe(201);
    const body = res.json() as { id: string; verification_challenge: string };
    return { ...body, record: `_posthog-challenge.${name}`, url: `${org.base}/domains/${body.id}/` };
  }

  const verify = (url: string, body?: unknown) =>
    h.request('POST', `${url}verify/`, { key: org.admin.key, body });

  it('verifies when a TXT record matches the challenge, then refuses to verify again', async () => {
    const d = await domain();
    dns.records.set(d.record, [['unrelated'], [d.verification_challenge], ['v=spf1 -all']]);
    const before = Date.now();
    const res = await verify(d.url);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ id: d.id, is_verified: true });
    expect(Date.parse(body.verified_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(dns.queries).toContain(d.record);
    expectReply(await h.request('GET', d.url, { key: org.member.key }), 200, body);
    expectReply(
      await verify(d.url),
      400,
      invalid('This domain has already been verified.', null, 'already_verified'),
    );
    // Verified, JIT provisioning and SSO enforcement can be switched on.
    const patched = await h.request('PATCH', d.url, {
      key: org.admin.key,
      body: { jit_provisioning_enabled: true, sso_enforcement: 'google-oauth2' },
    });
    expect(patched.json()).toMatchObject({
      jit_provisioning_enabled: true,
      sso_enforcement: 'google-oauth2',
    });
  });

  it('joins a record split into several character-strings', async () => {
    const d = await domain();
    const c = d.verification_challenge;
    dns.records.set(d.record, [[c.slice(0, 10), c.slice(10)]]);
    expect((await verify(d.url)).json().is_verified).toBe(true);
  });

  it('accepts and ignores the domain fields sent as the body', async () => {
    const d = await domain();
    dns.records.set(d.record, [[d.verification_challenge]]);
    const res = await verify(d.url, {
      domain: 'other.com',
      jit_provisioning_enabled: true,
      is_verified: false,
    });
    expect(res.json()).toMatchObject({
      domain: d.record.replace('_posthog-challenge.', ''),
      is_verified: true,
    });
    expect(res.json().jit_provisioning_enabled).toBe(false);
  });

  it.each([
    ['a wrong record', (c: string) => [[`${c}x`], ['something else']] as string[][]],
    ['no record (NXDOMAIN)', null],
    ['a name without TXT data', () => [] as string[][]],
    ['SERVFAIL', () => 'SERVFAIL' as const],
  ])('answers 200 unverified for %s', async (_, answer) => {
    const d = await domain();
    if (answer) dns.records.set(d.record, answer(d.verification_challenge));
    const res = await verify(d.url);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: d.id, is_verified: false, verified_at: null });
    expect(dns.queries).toContain(d.record);
    // A later, correct record still verifies.
    dns.records.set(d.record, [[d.verification_challenge]]);
    expect((await verify(d.url)).json().is_verified).toBe(true);
  });

  it('answers 503 when the DNS server does not answer, and leaves the domain unverified', async () => {
    const d = await domain();
    dns.records.set(d.record, 'TIMEOUT');
    const res = await verify(d.url);
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('30');
    expect(res.json()).toEqual({
      type: 'server_error',
      code: 'dns_unavailable',
      detail: `Could not look up ${d.record} (timed out); try again later.`,
      attr: null,
    });
    expect((await h.request('GET', d.url, { key: org.admin.key })).json().is_verified).toBe(false);
  });
});

describe('domain verification with an unreachable DNS server', () => {
  it('answers 503 rather than failing the request', async () => {
    // Nothing listens on this port: the resolver gets no answer at all.
    const dns = await startDnsServer();
    const address = dns.address;
    await dns.close();
    const h = await startHarness({ DNS_SERVERS: address, DNS_TIMEOUT_MS: '100' });
    try {
      const org = await organization(h);
      const created = await h.request('POST', `${org.base}/domains/`, {
        key: org.owner.key,
        body: { domain: `down${Date.now()}.example.net` },
      });
      const res = await h.request('POST', `${org.base}/domains/${created.json().id}/verify/`, {
        key: org.owner.key,
      });
      expect(res.statusCode).toBe(503);
      expect(res.json().code).toBe('dns_unavailable');
    } finally {
      await h.close();
    }
  });
});
