import { join } from 'node:path';
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/server/app.js';
import { type Bus, redisBus } from '../../src/store/shared/bus.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/** posthog-node against a running Burrow: remote evaluation, local evaluation (personal and secret key). */
describe(`feature flags with posthog-node and across nodes (${backend})`, () => {
  let h: Harness;
  let url: string;
  let base: string;
  const clients: PostHog[] = [];
  beforeAll(async () => {
    h = await startHarness();
    url = await h.app.listen({ host: '127.0.0.1', port: 0 });
    base = `/api/projects/${h.boot.project_id}/feature_flags/`;
    const create = async (body: unknown) =>
      expect((await h.request('POST', base, { body })).statusCode).toBe(201);
    await create({
      key: 'pricing-page',
      filters: {
        groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }], rollout_percentage: 100 }],
        multivariate: {
          variants: [
            { key: 'control', rollout_percentage: 50 },
            { key: 'test', rollout_percentage: 50 },
          ],
        },
        payloads: { control: '{"price": 10}', test: { price: 12 } },
      },
    });
    await create({
      key: 'everyone',
      filters: { groups: [{ rollout_percentage: 100 }], payloads: { true: '"hello"' } },
    });
    await create({ key: 'nobody', filters: { groups: [{ rollout_percentage: 0 }] } });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.shutdown()));
    await h.close();
  });
  const client = (options: Record<string, unknown> = {}) => {
    const c = new PostHog(h.boot.project_api_key, {
      host: url,
      flushAt: 1,
      flushInterval: 0,
      featureFlagsPollingInterval: 600_000,
      ...options,
    });
    clients.push(c);
    return c;
  };

  it('remote evaluation: getFeatureFlag, isFeatureEnabled, getAllFlags, payloads', async () => {
    const c = client();
    const variant = await c.getFeatureFlag('pricing-page', 'user-1', { personProperties: { plan: 'pro' } });
    expect(['control', 'test']).toContain(variant);
    expect(await c.getFeatureFlag('pricing-page', 'user-1', { personProperties: { plan: 'free' } })).toBe(
      false,
    );
    expect(await c.isFeatureEnabled('everyone', 'user-1')).toBe(true);
    expect(await c.isFeatureEnabled('nobody', 'user-1')).toBe(false);
    const all = await c.getAllFlags('user-1', { personProperties: { plan: 'pro' } });
    expect(all).toMatchObject({ everyone: true, nobody: false, 'pricing-page': variant });
    expect(await c.getFeatureFlagPayload('everyone', 'user-1')).toBe('hello');
    const payload = await c.getFeatureFlagPayload('pricing-page', 'user-1', variant as string, {
      personProperties: { plan: 'pro' },
    });
    expect(payload).toEqual(variant === 'control' ? { price: 10 } : { price: 12 });
    const evaluated = await c.evaluateFlags('user-1', { personProperties: { plan: 'pro' } });
    expect(evaluated.getFlag('pricing-page')).toBe(variant);
    expect(evaluated.isEnabled('everyone')).toBe(true);

    // The SDK reports the calls as $feature_flag_called events: stored and queryable like any other.
    await c.flush();
    const query = async () =>
      (
        await h.request('POST', `/api/projects/${h.boot.project_id}/query/`, {
          body: {
            query: {
              kind: 'HogQLQuery',
              query:
                "SELECT properties.$feature_flag_response FROM events WHERE event = '$feature_flag_called' AND properties.$feature_flag = 'pricing-page' AND distinct_id = 'user-1'",
            },
            refresh: 'force_blocking',
          },
        })
      ).json().results as string[][];
    let rows: string[][] = [];
    for (let i = 0; i < 50 && rows.length === 0; i++) {
      rows = await query();
      if (rows.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(rows.map((r) => r[0])).toContain(variant);
  });

  it('local evaluation with a personal key and with the project secret key; a bad key is refused', async () => {
    const local = client({ personalApiKey: h.key });
    expect(await local.waitForLocalEvaluationReady(10_000)).toBe(true);
    const remoteValue = await client().getFeatureFlag('pricing-page', 'user-7', {
      personProperties: { plan: 'pro' },
    });
    expect(
      await local.getFeatureFlag('pricing-page', 'user-7', {
        personProperties: { plan: 'pro' },
        onlyEvaluateLocally: true,
      }),
    ).toBe(remoteValue);

    const rotated = await h.request('POST', `/api/projects/${h.boot.project_id}/rotate_secret_token/`);
    const secret = rotated.json().secret_api_token as string;
    expect(secret).toMatch(/^phs_[A-Za-z0-9]{43}$/);
    // Shown once: afterwards only the mask.
    expect(
      (await h.request('GET', `/api/projects/${h.boot.project_id}/secret_api_token/`)).json().mask_value,
    ).toBe(`phs_...${secret.slice(-4)}`);
    const withSecret = client({ personalApiKey: secret });
    expect(await withSecret.waitForLocalEvaluationReady(10_000)).toBe(true);
    expect(await withSecret.getFeatureFlag('everyone', 'someone', { onlyEvaluateLocally: true })).toBe(true);

    const bad = await fetch(`${url}/flags/definitions?token=${h.boot.project_api_key}&send_cohorts`, {
      headers: { authorization: 'Bearer phs_wrong' },
    });
    expect(bad.status).toBe(401);
    expect((await fetch(`${url}/flags/definitions?token=${h.boot.project_api_key}`)).status).toBe(401);
    // Rotation retires the old secret at once.
    await h.request('POST', `/api/projects/${h.boot.project_id}/rotate_secret_token/`);
    expect(
      (
        await fetch(`${url}/flags/definitions?send_cohorts`, {
          headers: { authorization: `Bearer ${secret}` },
        })
      ).status,
    ).toBe(401);
    // A key without feature_flag:read is refused.
    const noScope = await h.user({ organizationId: h.boot.organization_id, key: { scopes: ['query:read'] } });
    const denied = await fetch(`${url}/api/feature_flag/local_evaluation/?token=${h.boot.project_api_key}`, {
      headers: { authorization: `Bearer ${noScope.key}` },
    });
    expect(denied.status).toBe(403);
  });

  it('serves definitions with an ETag (304 when unchanged) and changes it when a flag changes', async () => {
    const headers = { authorization: `Bearer ${h.key}` };
    const first = await fetch(
      `${url}/api/feature_flag/local_evaluation/?token=${h.boot.project_api_key}&send_cohorts`,
      { headers },
    );
    expect(first.status).toBe(200);
    const body = (await first.json()) as { flags: Array<{ key: string; id: number }> };
    expect(body).toMatchObject({ group_type_mapping: {}, cohorts: {} });
    expect(body.flags.map((f: { key: string }) => f.key)).toEqual(['pricing-page', 'everyone', 'nobody']);
    const etag = first.headers.get('etag') as string;
    const again = await fetch(`${url}/flags/definitions?token=${h.boot.project_api_key}&send_cohorts`, {
      headers: { ...headers, 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    const id = body.flags[2]?.id;
    await h.request('PATCH', `${base}${id}/`, {
      body: { filters: { groups: [{ rollout_percentage: 100 }] } },
    });
    const changed = await fetch(`${url}/flags/definitions?token=${h.boot.project_api_key}`, {
      headers: { ...headers, 'if-none-match': etag },
    });
    expect(changed.status).toBe(200);
    const project = await fetch(`${url}/api/projects/${h.boot.project_id}/feature_flags/local_evaluation/`, {
      headers,
    });
    expect(project.status).toBe(200);
  });

  describe('a second node sharing the stores', () => {
    let other: App;
    let otherBus: Bus | undefined;
    beforeAll(async () => {
      // With Redis the second node hears changes through Redis; without it, through the shared in-process bus.
      otherBus = process.env.REDIS_URL
        ? await redisBus(process.env.REDIS_URL, h.config.redisKeyPrefix)
        : undefined;
      other = await buildApp({
        // Another node: its own capture journal.
        config: { ...h.config, captureJournalDir: join(h.config.dataDir, 'journal-other-node') },
        meta: h.stores.meta,
        events: h.stores.events,
        bus: otherBus ?? h.stores.bus,
      });
      await other.ready();
    });
    afterAll(async () => {
      await other.close();
      await otherBus?.close();
    });
    const flagsOn = async (app: App) =>
      (
        await app.inject({
          method: 'POST',
          url: '/flags/?v=2&config=true',
          payload: { token: h.boot.project_api_key, distinct_id: 'n1' },
        })
      ).json();

    it('sees a flag change on the next /flags request, not after a cache expiry', async () => {
      expect((await flagsOn(other)).flags.everyone.enabled).toBe(true);
      const id = (await h.request('GET', `${base}everyone/`)).json().id;
      await h.request('PATCH', `${base}${id}/`, {
        body: { filters: { groups: [{ rollout_percentage: 0 }] } },
      });
      let seen = false;
      for (let i = 0; i < 50 && !seen; i++) {
        seen = (await flagsOn(other)).flags.everyone.enabled === false;
        if (!seen) await new Promise((r) => setTimeout(r, 10));
      }
      expect(seen).toBe(true);
    });

    it('sees a project settings change in /flags and /array/{token}/config at once', async () => {
      const config = async () =>
        (await other.inject({ method: 'GET', url: `/array/${h.boot.project_api_key}/config` })).json();
      expect((await config()).sessionRecording).toBe(false);
      expect((await flagsOn(other)).sessionRecording).toBe(false);
      await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, {
        body: { session_recording_opt_in: true },
      });
      let seen = false;
      for (let i = 0; i < 50 && !seen; i++) {
        seen =
          (await config()).sessionRecording !== false && (await flagsOn(other)).sessionRecording !== false;
        if (!seen) await new Promise((r) => setTimeout(r, 10));
      }
      expect(seen).toBe(true);
    });
  });
});
