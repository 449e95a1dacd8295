import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/** `experiments`: CRUD, the flag it creates or links, launch/stop/reset, and the refusals. */
describe(`Experiments resource (${backend})`, () => {
  let h: Harness;
  let path: string;
  let flags: string;
  beforeAll(async () => {
    h = await startHarness();
    path = `/api/environments/${h.boot.project_id}/experiments/`;
    flags = `/api/projects/${h.boot.project_id}/feature_flags/`;
  });
  afterAll(async () => {
    await h?.close();
  });

  it('creates an experiment with its flag, launches, refuses variant changes, stops, resets', async () => {
    const created = await h.request('POST', path, {
      body: { name: 'Checkout button', feature_flag_key: 'checkout-button' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const e = created.json();
    expect(e).toMatchObject({
      name: 'Checkout button',
      feature_flag_key: 'checkout-button',
      start_date: null,
      status: 'draft',
      parameters: { feature_flag_variants: [{ key: 'control' }, { key: 'test' }] },
    });
    expect(e.feature_flag.filters.multivariate.variants).toHaveLength(2);
    expect(e.feature_flag.active).toBe(false);

    const item = `${path}${e.id}/`;
    // Before launch, variants may change; the flag follows.
    const threeWay = [
      { key: 'control', rollout_percentage: 34 },
      { key: 'a', rollout_percentage: 33 },
      { key: 'b', rollout_percentage: 33 },
    ];
    const changed = await h.request('PATCH', item, {
      body: { parameters: { feature_flag_variants: threeWay } },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(
      changed.json().feature_flag.filters.multivariate.variants.map((v: { key: string }) => v.key),
    ).toEqual(['control', 'a', 'b']);

    const launched = await h.request('PATCH', item, { body: { start_date: '2026-11-01T00:00:00Z' } });
    expect(launched.statusCode, launched.body).toBe(200);
    expect(launched.json()).toMatchObject({ status: 'running', feature_flag: { active: true } });

    const refused = await h.request('PATCH', item, {
      body: {
        parameters: {
          feature_flag_variants: [
            { key: 'control', rollout_percentage: 100 },
            { key: 'x', rollout_percentage: 0 },
          ],
        },
      },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ type: 'validation_error', attr: 'parameters' });
    expect(refused.json().detail).toMatch(/launched/);

    const delFlag = await h.request('DELETE', `${flags}${e.feature_flag.id}/`);
    expect(delFlag.statusCode).toBe(400);
    expect(delFlag.json().detail).toMatch(/running experiment/);

    const stopped = await h.request('PATCH', item, {
      body: { end_date: '2026-11-20T00:00:00Z', conclusion: 'won' },
    });
    expect(stopped.json()).toMatchObject({ status: 'stopped', conclusion: 'won' });
    const reset = await h.request('PATCH', item, { body: { start_date: null, end_date: null } });
    expect(reset.json()).toMatchObject({ status: 'draft', start_date: null, end_date: null });

    const archived = await h.request('PATCH', item, { body: { archived: true } });
    expect(archived.json().archived).toBe(true);
    const list = (await h.request('GET', `${path}?archived=false`)).json();
    expect(list.results.map((x: { id: number }) => x.id)).not.toContain(e.id);
    expect((await h.request('GET', path)).json().count).toBeGreaterThanOrEqual(1);

    expect((await h.request('DELETE', item)).statusCode).toBe(204);
    expect((await h.request('GET', item)).statusCode).toBe(404);
    // With the experiment gone the flag may be deleted.
    expect((await h.request('DELETE', `${flags}${e.feature_flag.id}/`)).statusCode).toBe(204);
  });

  it('links an existing multivariate flag and refuses bad input in PostHog shape', async () => {
    const flag = await h.request('POST', flags, {
      body: {
        key: 'pricing-page',
        filters: {
          groups: [{ properties: [], rollout_percentage: 100 }],
          multivariate: {
            variants: [
              { key: 'control', rollout_percentage: 50 },
              { key: 'test', rollout_percentage: 50 },
            ],
          },
        },
      },
    });
    expect(flag.statusCode, flag.body).toBe(201);
    const linked = await h.request('POST', path, {
      body: { name: 'Pricing', feature_flag_key: 'pricing-page' },
    });
    expect(linked.statusCode, linked.body).toBe(201);
    expect(linked.json().feature_flag.id).toBe(flag.json().id);

    const bad = async (body: Record<string, unknown>, attr: string) => {
      const r = await h.request('POST', path, { body });
      expect(r.statusCode, r.body).toBe(400);
      expect(r.json()).toMatchObject({ type: 'validation_error', attr });
    };
    await bad(
      {
        name: 'x',
        feature_flag_key: 'x1',
        parameters: {
          feature_flag_variants: [
            { key: 'control', rollout_percentage: 50 },
            { key: 'test', rollout_percentage: 40 },
          ],
        },
      },
      'parameters',
    );
    await bad(
      {
        name: 'x',
        feature_flag_key: 'x2',
        parameters: {
          feature_flag_variants: [
            { key: 'a', rollout_percentage: 50 },
            { key: 'b', rollout_percentage: 50 },
          ],
        },
      },
      'parameters',
    );
    await bad({ feature_flag_key: 'x3' }, 'name');
    await bad({ name: 'x' }, 'feature_flag_key');
    await bad({ name: 'x', feature_flag_key: 'x4', metrics: [{ kind: 'Nope' }] }, 'metrics');
    const plain = await h.request('POST', flags, {
      body: { key: 'plain-flag', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } },
    });
    expect(plain.statusCode).toBe(201);
    await bad({ name: 'x', feature_flag_key: 'plain-flag' }, 'feature_flag_key');
    // Failed creates left no flags behind.
    expect((await h.request('GET', `${flags}?search=x1`)).json().count).toBe(0);
    expect((await h.request('GET', `${path}abc/`)).statusCode).toBe(404);
  });

  it('needs the experiment scopes', async () => {
    const reader = await h.user({
      organizationId: h.boot.organization_id,
      key: { scopes: ['experiment:read'] },
    });
    expect((await h.request('GET', path, { key: reader.key })).statusCode).toBe(200);
    const denied = await h.request('POST', path, {
      key: reader.key,
      body: { name: 'n', feature_flag_key: 'n' },
    });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().detail).toBe("API key missing required scope 'experiment:write'");
    expect((await h.request('GET', path, { key: null })).statusCode).toBe(401);
  });
});
