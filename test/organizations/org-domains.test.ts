import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DENIED, denied, INSUFFICIENT, NOT_FOUND, UUID } from '../helpers/bodies.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { expectReply, invalid, organization } from '../helpers/org-access.js';

const CERT = readFileSync(new URL('../fixtures/saml-idp-cert.pem', import.meta.url), 'utf8');
const FIELDS = [
  'domain',
  'has_saml',
  'id',
  'is_verified',
  'jit_provisioning_enabled',
  'saml_acs_url',
  'saml_entity_id',
  'saml_x509_cert',
  'sso_enforcement',
  'verification_challenge',
  'verified_at',
];
let seq = 0;
const unique = (stem = 'example') => `${stem}${Date.now().toString(36)}${seq++}.com`;

describe(`organization domains (${backend})`, () => {
  let h: Harness;
  let org: Awaited<ReturnType<typeof organization>>;

  beforeAll(async () => {
    h = await startHarness();
    org = await organization(h);
  });
  afterAll(async () => {
    await h?.close();
  });

  const create = (body: unknown, key = org.owner.key) =>
    h.request('POST', `${org.base}/domains/`, { key, body });

  it('creates an unverified domain with a fresh challenge, dropping JIT and SSO enforcement', async () => {
    const domain = unique();
    const res = await create({ domain, jit_provisioning_enabled: true, sso_enforcement: 'google-oauth2' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(FIELDS);
    expect(body).toMatchObject({
      domain,
      is_verified: false,
      verified_at: null,
      jit_provisioning_enabled: false,
      sso_enforcement: '',
      has_saml: false,
      saml_entity_id: null,
      saml_acs_url: null,
      saml_x509_cert: null,
    });
    expect(body.id).toMatch(UUID);
    expect(body.verification_challenge).toMatch(/^[0-9A-Za-z_-]{43}$/);
    const again = await h.request('GET', `${org.base}/domains/${body.id}/`, { key: org.member.key });
    expectReply(again, 200, body);
  });

  it.each([
    ['Example.com'],
    ['https://example.com'],
    ['user@example.com'],
    ['-example.com'],
    ['example.c'],
    ['example'],
    ['exa mple.com'],
    ['example..com'],
  ])('refuses the domain %j', async (domain) => {
    expectReply(
      await create({ domain }),
      400,
      invalid('Please enter a valid domain or subdomain name.', 'domain'),
    );
  });

  it('gives DRF messages for missing, blank, null, long and duplicate domains', async () => {
    expectReply(await create({}), 400, invalid('This field is required.', 'domain', 'required'));
    expectReply(
      await create({ domain: ' ' }),
      400,
      invalid('This field may not be blank.', 'domain', 'blank'),
    );
    expectReply(
      await create({ domain: null }),
      400,
      invalid('This field may not be null.', 'domain', 'null'),
    );
    expectReply(await create({ domain: 5 }), 400, invalid('Not a valid string.', 'domain'));
    expectReply(
      await create({ domain: `${'a'.repeat(125)}.com` }),
      400,
      invalid('Ensure this field has no more than 128 characters.', 'domain', 'max_length'),
    );
    const domain = unique();
    expect((await create({ domain: ` ${domain} ` })).json().domain).toBe(domain);
    const taken = invalid('domain with this domain already exists.', 'domain', 'unique');
    expectReply(await create({ domain }), 400, taken);
    // Unique across every organization, not per organization.
    const other = await h.owner('Other');
    const res = await h.request('POST', `/api/organizations/${other.organizationId}/domains/`, {
      key: other.key,
      body: { domain },
    });
    expectReply(res, 400, taken);
  });

  it('lists by name, paged', async () => {
    const fresh = await organization(h);
    const names = ['c-site.org', 'a-site.org', 'b-site.org'].map((n) => `${seq++}${n}`);
    for (const domain of names) {
      const res = await h.request('POST', `${fresh.base}/domains/`, {
        key: fresh.owner.key,
        body: { domain },
      });
      expect(res.statusCode).toBe(201);
    }
    const url = `${fresh.base}/domains/`;
    const page = await h.request('GET', `${url}?limit=2`, { key: fresh.member.key });
    expect(page.statusCode).toBe(200);
    const body = page.json();
    expect(body.count).toBe(3);
    expect(body.results.map((d: { domain: string }) => d.domain)).toEqual([...names].sort().slice(0, 2));
    expect(body.next).toBe(`http://localhost${url}?limit=2&offset=2`);
    expect(body.previous).toBeNull();
    const last = (
      await h.request('GET', body.next.replace('http://localhost', ''), { key: fresh.member.key })
    ).json();
    expect(last.results.map((d: { domain: string }) => d.domain)).toEqual([[...names].sort()[2]]);
    expect(last.previous).toBe(`http://localhost${url}?limit=2`);
  });

  it('keeps the name immutable and needs a verified domain for JIT and SSO enforcement', async () => {
    const created = (await create({ domain: unique() })).json();
    const url = `${org.base}/domains/${created.id}/`;
    const renamed = await h.request('PATCH', url, { key: org.admin.key, body: { domain: 'other.com' } });
    expectReply(renamed, 200, created);
    for (const [attr, value] of [
      ['jit_provisioning_enabled', true],
      ['jit_provisioning_enabled', false],
      ['sso_enforcement', 'saml'],
    ] as const) {
      const res = await h.request('PATCH', url, { key: org.admin.key, body: { [attr]: value } });
      expectReply(
        res,
        400,
        invalid(
          'This attribute cannot be updated until the domain is verified.',
          attr,
          'verification_required',
        ),
      );
    }
  });

  it('validates SAML settings and derives has_saml', async () => {
    const created = (await create({ domain: unique() })).json();
    const url = `${org.base}/domains/${created.id}/`;
    const patch = (body: object) => h.request('PATCH', url, { key: org.owner.key, body });
    for (const bad of ['not a url', 'ftp://idp.example.com/acs', 'https://', '/relative/acs']) {
      expectReply(await patch({ saml_acs_url: bad }), 400, invalid('Enter a valid URL.', 'saml_acs_url'));
    }
    const badCert = invalid('Enter a valid PEM-encoded X.509 certificate.', 'saml_x509_cert');
    for (const bad of [
      'hello',
      CERT.replace(/[A-Za-z]{20}/, 'x'),
      '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----',
    ]) {
      expectReply(await patch({ saml_x509_cert: bad }), 400, badCert);
    }
    expectReply(
      await patch({ saml_entity_id: 'e'.repeat(513) }),
      400,
      invalid('Ensure this field has no more than 512 characters.', 'saml_entity_id', 'max_length'),
    );
    expectReply(
      await patch({ sso_enforcement: 's'.repeat(29) }),
      400,
      invalid('Ensure this field has no more than 28 characters.', 'sso_enforcement', 'max_length'),
    );
    const partial = await patch({ saml_entity_id: 'https://idp.example.com/entity', saml_x509_cert: CERT });
    expect(partial.json()).toMatchObject({ has_saml: false, saml_x509_cert: CERT.trim() });
    const full = await patch({ saml_acs_url: 'https://idp.example.com/acs' });
    expect(full.json()).toMatchObject({ has_saml: true, saml_acs_url: 'https://idp.example.com/acs' });
    // The bare base64 body identity providers show is accepted and stored as PEM.
    const body = CERT.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
    const bare = await patch({ saml_x509_cert: body });
    expect(bare.statusCode).toBe(200);
    expect(bare.json().saml_x509_cert.replace(/\s+/g, '')).toBe(CERT.replace(/\s+/g, ''));
    expect((await patch({ saml_acs_url: null })).json()).toMatchObject({
      has_saml: false,
      saml_acs_url: null,
    });
    expect((await patch({ saml_entity_id: '' })).json()).toMatchObject({ saml_entity_id: '' });
  });

  it('deletes with 204 and an empty body', async () => {
    const created = (await create({ domain: unique() })).json();
    const url = `${org.base}/domains/${created.id}/`;
    const res = await h.request('DELETE', url, { key: org.admin.key });
    expect({ status: res.statusCode, body: res.body }).toEqual({ status: 204, body: '' });
    expectReply(await h.request('GET', url, { key: org.owner.key }), 404, NOT_FOUND);
    // The name is free again.
    expect((await create({ domain: created.domain })).statusCode).toBe(201);
  });

  it('lets members read and only admins write', async () => {
    const created = (await create({ domain: unique() })).json();
    const url = `${org.base}/domains/${created.id}/`;
    const key = org.member.key;
    expect((await h.request('GET', `${org.base}/domains/`, { key })).statusCode).toBe(200);
    expect((await h.request('GET', url, { key })).statusCode).toBe(200);
    expectReply(await create({ domain: unique() }, key), 403, INSUFFICIENT);
    expectReply(await h.request('PATCH', url, { key, body: { saml_entity_id: 'x' } }), 403, INSUFFICIENT);
    expectReply(await h.request('DELETE', url, { key }), 403, INSUFFICIENT);
    expectReply(await h.request('POST', `${url}verify/`, { key }), 403, INSUFFICIENT);
    // An invalid body from a member is still a 403: permissions come first.
    expectReply(await create({ domain: 'NOPE' }, key), 403, INSUFFICIENT);
    expectReply(await create({ domain: 5, saml_acs_url: [] }, key), 403, INSUFFICIENT);
    expectReply(await h.request('PATCH', url, { key, body: { sso_enforcement: 7 } }), 403, INSUFFICIENT);
  });

  it('answers 403 for another organization and 404 for its domains under yours', async () => {
    const other = await h.owner('Elsewhere');
    const theirs = (
      await h.request('POST', `/api/organizations/${other.organizationId}/domains/`, {
        key: other.key,
        body: { domain: unique() },
      })
    ).json();
    const foreign = `/api/organizations/${other.organizationId}/domains/`;
    expectReply(await h.request('GET', foreign, { key: org.owner.key }), 403, DENIED);
    expectReply(await h.request('GET', `${foreign}${theirs.id}/`, { key: org.owner.key }), 403, DENIED);
    for (const [method, suffix] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', 'verify/'],
    ]) {
      const res = await h.request(method!, `${org.base}/domains/${theirs.id}/${suffix}`, {
        key: org.owner.key,
        body: method === 'PATCH' ? {} : undefined,
      });
      expectReply(res, 404, NOT_FOUND);
    }
    expectReply(
      await h.request('GET', `${org.base}/domains/not-a-uuid/`, { key: org.owner.key }),
      404,
      NOT_FOUND,
    );
    expectReply(
      await h.request('GET', `/api/organizations/${crypto.randomUUID()}/domains/`, { key: org.owner.key }),
      404,
      NOT_FOUND,
    );
  });

  it('needs organization:read to read and organization:write to write', async () => {
    const reader = await h.user({
      organizationId: org.orgId,
      level: 8,
      key: { scopes: ['organization:read'] },
    });
    expect((await h.request('GET', `${org.base}/domains/`, { key: reader.key })).statusCode).toBe(200);
    expectReply(
      await create({ domain: unique() }, reader.key),
      403,
      denied("API key missing required scope 'organization:write'"),
    );
    const writer = await h.user({
      organizationId: org.orgId,
      level: 8,
      key: { scopes: ['organization:write'] },
    });
    const made = await create({ domain: unique() }, writer.key);
    expect(made.statusCode).toBe(201);
    const verify = await h.request('POST', `${org.base}/domains/${made.json().id}/verify/`, {
      key: reader.key,
    });
    expectReply(verify, 403, denied("API key missing required scope 'organization:write'"));
    const anonymous = await h.request('GET', `${org.base}/domains/`, { key: null });
    expect(anonymous.statusCode).toBe(401);
  });
});
