import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

describe(`GET /api/users/@me/ (${backend})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('describes the caller, their current organization and project, and all their organizations', async () => {
    const res = await h.request('GET', '/api/users/@me');
    expect(res.statusCode).toBe(200);
    const me = res.json();
    expect(me).toMatchObject({
      email: 'admin@burrow.local',
      is_email_verified: true,
      has_password: false,
      organization: { id: h.boot.organization_id, membership_level: 15 },
      team: {
        id: h.boot.project_id,
        api_token: h.boot.project_api_key,
        organization: h.boot.organization_id,
      },
    });
    expect(me.organizations).toHaveLength(1);
    expect(me).not.toHaveProperty('password_hash');
  });

  it('falls back to the first remaining project when the current one is deleted', async () => {
    const created = await h.request('POST', `/api/organizations/${h.boot.organization_id}/projects/`, {
      body: { name: 'Second' },
    });
    expect(created.statusCode).toBe(201);
    const del = await h.request('DELETE', `/api/projects/${h.boot.project_id}/`);
    expect(del.statusCode).toBe(204);
    const me = (await h.request('GET', '/api/users/@me/')).json();
    expect(me.team).toMatchObject({ id: created.json().id, name: 'Second' });
  });

  it('names the new organization as current after creating one', async () => {
    const org = (await h.request('POST', '/api/organizations/', { body: { name: 'Newer' } })).json();
    const me = (await h.request('GET', '/api/users/@me/')).json();
    expect(me.organization.id).toBe(org.id);
    expect(me.team.organization).toBe(org.id);
    expect(me.organizations.map((o: { name: string }) => o.name)).toEqual(['Default organization', 'Newer']);
  });
});
