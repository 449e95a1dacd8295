import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { organization } from '../helpers/org-access.js';

/**
 * The project's `phs_` secret key reads every flag definition: as PostHog's rotate and delete
 * actions (TeamMemberStrictManagementPermission), only an organization admin or owner may mint,
 * replace or revoke it; a member sees its mask only.
 */
describe(`the project secret key needs an admin (${backend})`, () => {
  let h: Harness;
  let org: Awaited<ReturnType<typeof organization>>;
  let base: string;
  beforeAll(async () => {
    h = await startHarness();
    org = await organization(h);
    base = `/api/projects/${org.owner.projectId}`;
  });
  afterAll(async () => h?.close());

  const as = (key: string, method: string, path: string) => h.request(method, `${base}${path}`, { key });
  const denied = {
    type: 'authentication_error',
    code: 'permission_denied',
    detail: 'Your organization access level is insufficient.',
    attr: null,
  };

  it('refuses a member rotating or deleting it, and leaves the key working', async () => {
    const minted = await as(org.owner.key, 'POST', '/rotate_secret_token/');
    expect(minted.statusCode).toBe(200);
    const mask = minted.json().mask_value;

    const rotate = await as(org.member.key, 'POST', '/rotate_secret_token/');
    expect(rotate.statusCode).toBe(403);
    expect(rotate.json()).toEqual(denied);
    const remove = await as(org.member.key, 'DELETE', '/secret_api_token/');
    expect(remove.statusCode).toBe(403);
    expect(remove.json()).toEqual(denied);

    // The member may still read the mask, which did not change.
    const seen = await as(org.member.key, 'GET', '/secret_api_token/');
    expect(seen.json().mask_value).toBe(mask);
    const flags = await h.app.inject({
      method: 'GET',
      url: '/flags/definitions',
      headers: { authorization: `Bearer ${minted.json().secret_api_token}` },
    });
    expect(flags.statusCode).toBe(200);
  });

  it('lets an admin and the owner rotate and delete it', async () => {
    const rotated = await as(org.admin.key, 'POST', '/rotate_secret_token/');
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().secret_api_token).toMatch(/^phs_/);
    expect((await as(org.admin.key, 'DELETE', '/secret_api_token/')).statusCode).toBe(204);
    expect((await as(org.owner.key, 'POST', '/rotate_secret_token/')).statusCode).toBe(200);
    expect((await as(org.owner.key, 'DELETE', '/secret_api_token/')).statusCode).toBe(204);
    expect((await as(org.member.key, 'GET', '/secret_api_token/')).json().mask_value).toBeNull();
  });
});
