import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, type KeyInput } from '../../src/domain/accounts/personal-api-keys.js';
import type { UserRecord } from '../../src/store/meta/users.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * PostHog's `set_current_organization` / `set_current_team` on `PATCH /api/users/@me/`: the user
 * must belong to the target (400), a restricted key must stay inside its restriction (403), and
 * `@current` of a restricted key resolves inside it whatever the user's current project is.
 */
describe(`switching the current organization and project (${backend})`, () => {
  let h: Harness;
  let user: UserRecord;
  let full: string;
  let orgA: string;
  let pA: number;
  let orgB: string;
  let pB: number;
  let stranger: { organizationId: string; projectId: number };
  const mint = async (input: Partial<KeyInput>) =>
    (await createKey(h.deps, { user, key: null }, { label: 'switch', scopes: ['*'], ...input }))
      .value as string;
  const patchMe = (key: string, body: Record<string, unknown>) =>
    h.request('PATCH', '/api/users/@me/', { key, body });
  const me = async (key: string) => (await h.request('GET', '/api/users/@me/', { key })).json();

  beforeAll(async () => {
    h = await startHarness({ AUTH_CACHE_TTL_MS: '60000' });
    ({ user, key: full, organizationId: orgA, projectId: pA } = await h.owner('Org A'));
    const b = await h.request('POST', '/api/organizations/', { key: full, body: { name: 'Org B' } });
    orgB = b.json().id;
    pB = (await h.request('GET', `/api/organizations/${orgB}/projects/`, { key: full })).json().results[0].id;
    const other = await h.owner('Stranger org');
    stranger = { organizationId: other.organizationId, projectId: other.projectId };
  });
  afterAll(async () => h?.close());

  it('switch for an unrestricted key, as PostHog: organization with its first project, project with its organization', async () => {
    // Creating B made it current (PostHog's organization bootstrap does the same).
    expect((await me(full)).organization.id).toBe(orgB);
    const toA = await patchMe(full, { set_current_organization: orgA });
    expect(toA.statusCode).toBe(200);
    expect(toA.json()).toMatchObject({ organization: { id: orgA }, team: { id: pA } });
    expect((await h.request('GET', '/api/projects/@current/', { key: full })).json().id).toBe(pA);
    const toPB = await patchMe(full, { set_current_team: pB });
    expect(toPB.json()).toMatchObject({ organization: { id: orgB }, team: { id: pB } });
    // The key's cached principal saw the change at once.
    expect((await h.request('GET', '/api/organizations/@current/', { key: full })).json().id).toBe(orgB);
  });

  it("refuses an organization or project the user is not in, with PostHog's 400", async () => {
    for (const [field, value] of [
      ['set_current_organization', stranger.organizationId],
      ['set_current_organization', 'not-a-uuid'],
      ['set_current_team', stranger.projectId],
      ['set_current_team', 999_999],
    ] as const) {
      const res = await patchMe(full, { [field]: value, first_name: 'Changed' });
      expect(res.statusCode, `${field}=${value}`).toBe(400);
      expect(res.json()).toEqual({
        type: 'validation_error',
        code: 'does_not_exist',
        detail: `Object with id=${value} does not exist.`,
        attr: field,
      });
    }
    // Nothing was written, the name neither.
    expect((await me(full)).first_name).not.toBe('Changed');
  });

  it("keeps a restricted key's switches inside its restriction (403) and changes nothing", async () => {
    await patchMe(full, { set_current_team: pA });
    const orgKey = await mint({ scoped_organizations: [orgA] });
    const projectKey = await mint({ scoped_teams: [pA] });
    for (const [key, body, detail] of [
      [orgKey, { set_current_organization: orgB }, `organization: ID ${orgB}`],
      [orgKey, { set_current_team: pB }, `project: ID ${pB}`],
      [projectKey, { set_current_organization: orgB }, `organization: ID ${orgB}`],
      [projectKey, { set_current_team: pB }, `project: ID ${pB}`],
    ] as const) {
      const res = await patchMe(key, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(403);
      expect(res.json()).toEqual({
        type: 'authentication_error',
        code: 'permission_denied',
        detail: `API key does not have access to the requested ${detail}.`,
        attr: null,
      });
    }
    expect((await me(full)).team.id).toBe(pA);
    // Inside the restriction it works.
    const ok = await patchMe(orgKey, { set_current_organization: orgA });
    expect(ok.json()).toMatchObject({ organization: { id: orgA }, team: { id: pA } });
    expect((await patchMe(projectKey, { set_current_team: pA })).statusCode).toBe(200);
  });

  it("resolves @current inside a restricted key's restriction when the user's current is elsewhere", async () => {
    const orgKey = await mint({ scoped_organizations: [orgA] });
    const projectKey = await mint({ scoped_teams: [pA] });
    // Another credential of the user moves the current organization to B.
    await patchMe(full, { set_current_organization: orgB });
    for (const key of [orgKey, projectKey]) {
      const project = await h.request('GET', '/api/projects/@current/', { key });
      expect(project.statusCode).toBe(200);
      expect(project.json().id).toBe(pA);
      expect(project.body).not.toContain(orgB);
      expect((await me(key)).team.id).toBe(pA);
    }
    const org = await h.request('GET', '/api/organizations/@current/', { key: orgKey });
    expect(org.statusCode).toBe(200);
    expect(org.json().id).toBe(orgA);
    // The unrestricted key still follows the user.
    expect((await h.request('GET', '/api/projects/@current/', { key: full })).json().id).toBe(pB);
  });
});
