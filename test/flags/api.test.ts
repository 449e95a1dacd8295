import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const boolFlag = (key: string, extra: Record<string, unknown> = {}) => ({
  key,
  name: `Flag ${key}`,
  filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
  ...extra,
});

describe(`feature flags resource (${backend})`, () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness();
    base = `/api/projects/${h.boot.project_id}/feature_flags/`;
  });
  afterAll(async () => h.close());

  const flags = (body: unknown) =>
    h.app.inject({
      method: 'POST',
      url: '/flags/?v=2',
      payload: body as object,
      headers: { 'content-type': 'application/json' },
    });

  it('creates, lists, searches, retrieves by id and key, patches and soft-deletes a flag', async () => {
    const created = await h.request('POST', base, { body: boolFlag('new-checkout', { tags: ['Beta'] }) });
    expect(created.statusCode).toBe(201);
    const flag = created.json();
    expect(flag).toMatchObject({
      key: 'new-checkout',
      active: true,
      deleted: false,
      version: 1,
      is_simple_flag: true,
      rollout_percentage: 100,
      tags: ['beta'],
    });
    expect(flag.created_by.email).toBeTruthy();
    await h.request('POST', base, { body: boolFlag('other-thing', { active: false }) });

    const list = await h.request('GET', `${base}?search=CHECKOUT`);
    expect(list.json().results.map((f: { key: string }) => f.key)).toEqual(['new-checkout']);
    expect(
      (await h.request('GET', `${base}?active=false`)).json().results.map((f: { key: string }) => f.key),
    ).toEqual(['other-thing']);
    expect((await h.request('GET', `${base}?limit=1`)).json()).toMatchObject({
      count: 2,
      next: expect.stringContaining('offset=1'),
    });
    expect((await h.request('GET', `${base}${flag.id}/`)).json().key).toBe('new-checkout');
    expect((await h.request('GET', `${base}new-checkout/`)).json().id).toBe(flag.id);
    expect(
      (await h.request('GET', `/api/environments/${h.boot.project_id}/feature_flags/${flag.id}/`)).statusCode,
    ).toBe(200);

    const patched = await h.request('PATCH', `${base}${flag.id}/`, {
      body: { name: 'Renamed', active: false },
    });
    expect(patched.json()).toMatchObject({ name: 'Renamed', active: false, version: 2 });

    expect((await h.request('PATCH', `${base}${flag.id}/`, { body: { deleted: true } })).json().deleted).toBe(
      true,
    );
    expect((await h.request('GET', base)).json().results.map((f: { key: string }) => f.key)).toEqual([
      'other-thing',
    ]);
    // The key is free again once the flag is deleted.
    expect((await h.request('POST', base, { body: boolFlag('new-checkout') })).statusCode).toBe(201);
  });

  it('refuses bad input with DRF-shaped errors naming the field', async () => {
    const bad = async (body: unknown) => {
      const res = await h.request('POST', base, { body });
      expect(res.statusCode, res.body).toBe(400);
      return res.json();
    };
    expect(await bad({ name: 'no key', filters: { groups: [{}] } })).toMatchObject({
      type: 'validation_error',
      attr: 'key',
      code: 'required',
    });
    expect(await bad(boolFlag('has space'))).toMatchObject({
      attr: 'key',
      code: 'invalid_key',
      detail: 'Only letters, numbers, hyphens (-) & underscores (_) are allowed.',
    });
    await h.request('POST', base, { body: boolFlag('taken') });
    expect(await bad(boolFlag('taken'))).toMatchObject({
      attr: 'key',
      code: 'unique',
      detail: 'There is already a feature flag with this key.',
    });
    expect(await bad({ key: 'no-groups', filters: { groups: [] } })).toMatchObject({
      attr: 'filters',
      detail: 'Feature flags must have at least one condition set (group).',
    });
    expect(await bad({ key: 'x1', filters: 'nope' })).toMatchObject({ attr: 'filters' });
    expect(
      await bad({
        key: 'x2',
        filters: {
          groups: [{ properties: [{ key: 'email', value: 'a', operator: 'sounds_like', type: 'person' }] }],
        },
      }),
    ).toMatchObject({ attr: 'filters', code: 'invalid_operator' });
    expect(
      await bad({
        key: 'x3',
        filters: {
          groups: [{ rollout_percentage: 100 }],
          multivariate: {
            variants: [
              { key: 'a', rollout_percentage: 50 },
              { key: 'b', rollout_percentage: 40 },
            ],
          },
        },
      }),
    ).toMatchObject({
      attr: 'filters',
      detail: 'Invalid variant definitions: Variant rollout percentages must sum to 100.',
    });
    expect(await bad({ key: 'x4', filters: { groups: [{ rollout_percentage: 140 }] } })).toMatchObject({
      attr: 'filters',
    });
    expect(await bad({ key: 'x5', filters: { groups: [{ variant: 'ghost' }] } })).toMatchObject({
      detail: 'Filters are not valid (variant override does not exist)',
    });
    expect(
      await bad({ key: 'x6', filters: { groups: [{}], payloads: { true: '{not json' } } }),
    ).toMatchObject({ detail: 'Payload value is not valid JSON' });
    expect(await bad({ key: 'x7', filters: { groups: [{}], payloads: { control: '1' } } })).toMatchObject({
      detail: "Payload keys must be 'true' for boolean flags",
    });
    expect(
      await bad({
        key: 'x8',
        filters: { groups: [{ properties: [{ key: 'n', value: 5, operator: 'gt', type: 'person' }] }] },
      }),
    ).toMatchObject({ code: 'invalid_value' });
    expect(
      await bad({
        key: 'x9',
        filters: { groups: [{ properties: [{ key: 'c', value: 'x', operator: 'exact', type: 'event' }] }] },
      }),
    ).toMatchObject({ detail: 'Filters are not valid (can only use person, cohort, and flag properties)' });
    const many = Array.from({ length: 1001 }, (_, i) => `v${i}`);
    expect(
      await bad({
        key: 'x10',
        filters: { groups: [{ properties: [{ key: 'email', value: many, type: 'person' }] }] },
      }),
    ).toMatchObject({ attr: 'filters' });
    expect(
      await bad({ key: 'x11', filters: { groups: Array.from({ length: 101 }, () => ({})) } }),
    ).toMatchObject({ attr: 'filters' });
    expect((await h.request('GET', `${base}999999/`)).statusCode).toBe(404);
  });

  it('refuses a stale edit as PostHog does (409) and accepts a non-conflicting one', async () => {
    const flag = (await h.request('POST', base, { body: boolFlag('concurrent') })).json();
    await h.request('PATCH', `${base}${flag.id}/`, { body: { name: 'by someone else' } });
    const stale = await h.request('PATCH', `${base}${flag.id}/`, {
      body: { name: 'mine', version: 1, original_flag: { name: flag.name } },
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'conflict' });
    const fine = await h.request('PATCH', `${base}${flag.id}/`, {
      body: { active: false, version: 1, original_flag: { active: true } },
    });
    expect(fine.statusCode).toBe(200);
  });

  it('checks scopes: feature_flag:read cannot write, other projects are invisible', async () => {
    const reader = await h.user({
      organizationId: h.boot.organization_id,
      key: { scopes: ['feature_flag:read'] },
    });
    expect((await h.request('GET', base, { key: reader.key })).statusCode).toBe(200);
    expect((await h.request('POST', base, { key: reader.key, body: boolFlag('nope') })).statusCode).toBe(403);
    const other = await h.owner();
    expect((await h.request('GET', base, { key: other.key })).statusCode).toBe(403);
  });

  it('evaluates flags in /flags v2, v1 and /decide, and a change is seen by the next request', async () => {
    const token = h.boot.project_api_key;
    const flag = (
      await h.request('POST', base, {
        body: {
          key: 'eval-me',
          filters: {
            groups: [
              {
                properties: [
                  { key: 'plan', value: ['pro', 'enterprise'], operator: 'exact', type: 'person' },
                ],
                rollout_percentage: 100,
                variant: 'blue',
              },
              { properties: [], rollout_percentage: 0 },
            ],
            multivariate: {
              variants: [
                { key: 'blue', rollout_percentage: 50 },
                { key: 'green', rollout_percentage: 50 },
              ],
            },
            payloads: { blue: { color: '#00f' } },
          },
        },
      })
    ).json();
    const v2 = (await flags({ token, distinct_id: 'u1', person_properties: { plan: 'Pro' } })).json();
    expect(v2.flags['eval-me']).toEqual({
      key: 'eval-me',
      enabled: true,
      variant: 'blue',
      reason: { code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' },
      metadata: { id: flag.id, version: 1, description: null, payload: '{"color":"#00f"}' },
    });
    expect(v2.errorsWhileComputingFlags).toBe(false);
    expect(v2.requestId).toMatch(/^[0-9a-f-]{36}$/);
    const miss = (await flags({ token, distinct_id: 'u1', person_properties: { plan: 'free' } })).json();
    expect(miss.flags['eval-me']).toMatchObject({
      enabled: false,
      variant: null,
      reason: { code: 'out_of_rollout_bound', condition_index: 1 },
    });

    const v1 = (
      await h.app.inject({
        method: 'POST',
        url: '/flags/',
        payload: { token, distinct_id: 'u1', person_properties: { plan: 'pro' } },
      })
    ).json();
    expect(v1.featureFlags['eval-me']).toBe('blue');
    expect(v1.featureFlagPayloads['eval-me']).toBe('{"color":"#00f"}');
    const decide3 = (
      await h.app.inject({
        method: 'POST',
        url: '/decide/?v=3',
        payload: { token, distinct_id: 'u1', person_properties: { plan: 'pro' } },
      })
    ).json();
    expect(decide3).toMatchObject({
      featureFlags: { 'eval-me': 'blue' },
      sessionRecording: false,
      hasFeatureFlags: true,
    });
    const decide1 = (
      await h.app.inject({
        method: 'POST',
        url: '/decide/?v=1',
        payload: { token, distinct_id: 'u1', person_properties: { plan: 'pro' } },
      })
    ).json();
    expect(decide1.featureFlags).toContain('eval-me');
    // gzip + base64 bodies as capture accepts them
    const b64 = Buffer.from(
      JSON.stringify({ token, distinct_id: 'u1', person_properties: { plan: 'pro' } }),
    ).toString('base64');
    const form = await h.app.inject({
      method: 'POST',
      url: '/flags/?v=2',
      payload: `data=${encodeURIComponent(b64)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.json().flags['eval-me'].variant).toBe('blue');

    await h.request('PATCH', `${base}${flag.id}/`, { body: { active: false } });
    expect(
      (await flags({ token, distinct_id: 'u1', person_properties: { plan: 'pro' } })).json().flags['eval-me'],
    ).toBeUndefined();
  });

  it('answers bad /flags input with clear 4xx', async () => {
    const token = h.boot.project_api_key;
    expect((await flags({ token: 'phc_unknown', distinct_id: 'x' })).statusCode).toBe(401);
    expect((await flags({ distinct_id: 'x' })).statusCode).toBe(401);
    const noId = await flags({ token });
    expect(noId.statusCode).toBe(400);
    expect(noId.json()).toMatchObject({ attr: 'distinct_id' });
    const huge = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`p${i}`, i]));
    expect((await flags({ token, distinct_id: 'x', person_properties: huge })).statusCode).toBe(400);
    expect((await flags({ token, distinct_id: 'x', person_properties: 'str' })).statusCode).toBe(400);
    expect((await flags({ token, distinct_id: { a: 1 } })).statusCode).toBe(400);
    const junk = await h.app.inject({
      method: 'POST',
      url: '/flags/?v=2',
      payload: 'not json at all',
      headers: { 'content-type': 'text/plain' },
    });
    expect(junk.statusCode).toBe(400);
    expect(
      (
        await h.app.inject({
          method: 'POST',
          url: '/flags/?v=2',
          payload: '[1,2]',
          headers: { 'content-type': 'application/json' },
        })
      ).statusCode,
    ).toBe(400);
  });
});
