import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, type KeyInput } from '../../src/domain/accounts/personal-api-keys.js';
import type { UserRecord } from '../../src/store/meta/users.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const denied = (detail: string) => ({
  type: 'authentication_error',
  code: 'permission_denied',
  detail,
  attr: null,
});

/**
 * One user in two organizations (A with project pA, B with project pB) holding keys restricted to
 * A, or to pA: what they list, read and create stays inside the restriction.
 */
describe(`restricted keys see and do only what their restriction allows (${backend})`, () => {
  let h: Harness;
  let user: UserRecord;
  let full: string;
  let orgA: string;
  let pA: number;
  let orgB: string;
  let pB: number;
  let tokenB: string;
  const mint = async (input: Partial<KeyInput>) =>
    (await createKey(h.deps, { user, key: null }, { label: 'restricted', scopes: ['*'], ...input })) as {
      id: string;
      value: string;
    };

  beforeAll(async () => {
    h = await startHarness();
    const a = await h.owner('Org A');
    ({ user, key: full, organizationId: orgA, projectId: pA } = a);
    const b = await h.request('POST', '/api/organizations/', { key: full, body: { name: 'Org B' } });
    expect(b.statusCode).toBe(201);
    orgB = b.json().id;
    const projects = await h.request('GET', `/api/organizations/${orgB}/projects/`, { key: full });
    pB = projects.json().results[0].id;
    tokenB = projects.json().results[0].api_token;
    expect(tokenB).toMatch(/^phc_/);
  });
  afterAll(async () => h?.close());

  describe('scoped_organizations=[A]', () => {
    let key: string;
    beforeAll(async () => {
      key = (await mint({ scoped_organizations: [orgA] })).value;
    });

    it('lists only organization A, never B nor its project token', async () => {
      const res = await h.request('GET', '/api/organizations/', { key });
      expect(res.statusCode).toBe(200);
      expect(res.json().count).toBe(1);
      expect(res.json().results.map((o: { id: string }) => o.id)).toEqual([orgA]);
      expect(res.body).not.toContain(orgB);
      expect(res.body).not.toContain(tokenB);
      // The unrestricted key of the same user sees both.
      expect((await h.request('GET', '/api/organizations/', { key: full })).json().count).toBe(2);
    });

    it('cannot create an organization', async () => {
      const res = await h.request('POST', '/api/organizations/', { key, body: { name: 'Escape' } });
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 403,
        body: denied('API keys with scoped organizations or projects cannot create organizations.'),
      });
      const names = (await h.request('GET', '/api/organizations/', { key: full })).json().results;
      expect(names.map((o: { name: string }) => o.name)).not.toContain('Escape');
    });

    it('reads nothing of B: organization, projects, project routes', async () => {
      for (const url of [
        `/api/organizations/${orgB}/`,
        `/api/organizations/${orgB}/projects/`,
        `/api/projects/${pB}/`,
        `/api/environments/${pB}/session_recording_playlists/`,
      ]) {
        const res = await h.request('GET', url, { key });
        expect({ url, status: res.statusCode }).toEqual({ url, status: 403 });
        expect(res.body).not.toContain(tokenB);
      }
      expect((await h.request('GET', `/api/projects/${pA}/`, { key })).statusCode).toBe(200);
    });

    it('@me shows only A', async () => {
      const me = (await h.request('GET', '/api/users/@me/', { key })).json();
      expect(me.organizations.map((o: { id: string }) => o.id)).toEqual([orgA]);
      expect(me.organization?.id).toBe(orgA);
      expect(me.team?.id).toBe(pA);
      expect(JSON.stringify(me)).not.toContain(tokenB);
    });
  });

  describe('scoped_teams=[pA]', () => {
    let key: { id: string; value: string };
    let other: { id: string; value: string };
    beforeAll(async () => {
      key = await mint({ scoped_teams: [pA] });
      other = await mint({ label: 'other key' });
    });

    it("reads its own metadata only, never another key's", async () => {
      const own = await h.request('GET', '/api/personal_api_keys/@current/', { key: key.value });
      expect({ status: own.statusCode, id: own.json().id }).toEqual({ status: 200, id: key.id });
      expect(
        (await h.request('GET', `/api/personal_api_keys/${key.id}/`, { key: key.value })).statusCode,
      ).toBe(200);
      const res = await h.request('GET', `/api/personal_api_keys/${other.id}/`, { key: key.value });
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 403,
        body: denied('This action does not support Personal API Key access'),
      });
      // An organization-restricted `*` key neither.
      const orgKey = (await mint({ scoped_organizations: [orgA] })).value;
      expect(
        (await h.request('GET', `/api/personal_api_keys/${other.id}/`, { key: orgKey })).statusCode,
      ).toBe(403);
      // The unrestricted `*` key manages the user's keys (Burrow's rule).
      expect((await h.request('GET', `/api/personal_api_keys/${other.id}/`, { key: full })).statusCode).toBe(
        200,
      );
    });

    it('lists and creates no organizations; @me shows only its project and organization', async () => {
      expect((await h.request('GET', '/api/organizations/', { key: key.value })).statusCode).toBe(403);
      const create = await h.request('POST', '/api/organizations/', { key: key.value, body: { name: 'X' } });
      expect(create.statusCode).toBe(403);
      expect((await h.request('GET', `/api/projects/${pB}/`, { key: key.value })).statusCode).toBe(403);
      const me = (await h.request('GET', '/api/users/@me/', { key: key.value })).json();
      expect(me.organizations.map((o: { id: string }) => o.id)).toEqual([orgA]);
      expect(me.team?.id).toBe(pA);
      expect(JSON.stringify(me)).not.toContain(tokenB);
    });
  });
});
