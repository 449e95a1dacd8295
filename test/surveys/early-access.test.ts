import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const ORIGIN = 'https://shop.example';

/** Early access features: CRUD, the linked flag, the SDK's list and enrolment flipping the flag. */
describe(`early access features (${backend})`, () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness();
    base = `/api/projects/${h.boot.project_id}/early_access_feature/`;
  });
  afterAll(async () => h?.close());

  const flagFor = async (key: string, person: Record<string, unknown>) =>
    (
      await h.app.inject({
        method: 'POST',
        url: '/flags/?v=2',
        payload: { token: h.boot.project_api_key, distinct_id: 'u1', person_properties: person },
      })
    ).json().flags[key]?.enabled;

  it('creates a feature with its flag; enrolment turns the flag on for that person only', async () => {
    const res = await h.request('POST', base, {
      body: {
        name: 'Dark Mode',
        description: 'Night',
        stage: 'beta',
        documentation_url: 'https://docs.example/dark',
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const f = res.json();
    expect(f).toMatchObject({ name: 'Dark Mode', stage: 'beta', feature_flag: { key: 'dark-mode' } });
    expect(f.feature_flag.filters.super_groups[0].properties[0].key).toBe('$feature_enrollment/dark-mode');
    expect(await flagFor('dark-mode', {})).toBe(false);
    expect(await flagFor('dark-mode', { '$feature_enrollment/dark-mode': true })).toBe(true);
    expect(await flagFor('dark-mode', { '$feature_enrollment/dark-mode': false })).toBe(false);

    const list = await h.app.inject({
      method: 'GET',
      url: `/api/early_access_features/?token=${h.boot.project_api_key}&stage=beta`,
      headers: { origin: ORIGIN },
    });
    expect(list.statusCode).toBe(200);
    expect(list.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(list.json().earlyAccessFeatures).toEqual([
      expect.objectContaining({
        name: 'Dark Mode',
        stage: 'beta',
        flagKey: 'dark-mode',
        documentationUrl: 'https://docs.example/dark',
      }),
    ]);
    const bad = await h.app.inject({
      method: 'GET',
      url: '/api/early_access_features/?token=nope',
      headers: { origin: ORIGIN },
    });
    expect(bad.statusCode).toBe(401);
    expect(bad.headers['access-control-allow-origin']).toBe(ORIGIN);

    // Back to draft: no enrolment condition, not listed.
    const draft = await h.request('PATCH', `${base}${f.id}/`, { body: { stage: 'draft' } });
    expect(draft.json().feature_flag.filters.super_groups).toBeUndefined();
    expect(await flagFor('dark-mode', { '$feature_enrollment/dark-mode': true })).toBe(false);
    const none = await h.app.inject({
      method: 'GET',
      url: `/api/early_access_features/?token=${h.boot.project_api_key}`,
    });
    expect(none.json().earlyAccessFeatures).toEqual([]);
  });

  it('refuses bad input and a flag already serving a feature', async () => {
    expect((await h.request('POST', base, { body: { name: 'x', stage: 'gamma' } })).json()).toMatchObject({
      attr: 'stage',
    });
    expect((await h.request('POST', base, { body: { stage: 'beta' } })).json()).toMatchObject({
      attr: 'name',
    });
    const flag = (
      await h.request('POST', `/api/projects/${h.boot.project_id}/feature_flags/`, {
        body: { key: 'existing', filters: { groups: [{ rollout_percentage: 100 }] } },
      })
    ).json();
    const first = await h.request('POST', base, {
      body: { name: 'A', stage: 'alpha', feature_flag_id: flag.id },
    });
    expect(first.statusCode).toBe(201);
    const again = await h.request('POST', base, {
      body: { name: 'B', stage: 'alpha', feature_flag_id: flag.id },
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().attr).toBe('feature_flag_id');
    expect((await h.request('DELETE', `${base}${first.json().id}/`)).statusCode).toBe(204);
    expect((await h.request('GET', `${base}${first.json().id}/`)).statusCode).toBe(404);
    const list = (
      await h.request('GET', `/api/environments/${h.boot.project_id}/early_access_feature/`)
    ).json();
    expect(list.count).toBe(1);
  });
});
