import { createHash } from 'node:crypto';
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * An experiment's holdout carves its share of users out of the flag's variants, as PostHog does:
 * the flag's `filters.holdout` is `{id, exclusion_percentage}` and a held-out user's variant is
 * `holdout-<id>`. Who is held out is checked against the hash computed here independently
 * (SHA-1 of "holdout-" + distinct id, first 15 hex digits over 2^60), through `/flags` and
 * through posthog-node asking the server.
 */
describe(`Experiment holdouts in flags (${backend})`, () => {
  let h: Harness;
  let url: string;
  let base: string;
  const clients: PostHog[] = [];
  beforeAll(async () => {
    h = await startHarness();
    url = await h.app.listen({ host: '127.0.0.1', port: 0 });
    base = `/api/projects/${h.boot.project_id}/`;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.shutdown()));
    await h?.close();
  });

  const heldOut = (id: string, share: number) =>
    Number.parseInt(createHash('sha1').update(`holdout-${id}`).digest('hex').slice(0, 15), 16) / 2 ** 60 <=
    share / 100;

  const variantOf = async (key: string, distinctId: string): Promise<unknown> => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/flags/?v=2',
      payload: { api_key: h.boot.project_api_key, distinct_id: distinctId },
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(200);
    return res.json().flags[key]?.variant;
  };

  it('holds out the holdout share with holdout-<id>, the rest get variants; removing it gives them back', async () => {
    const holdout = (
      await h.request('POST', `${base}experiment_holdouts/`, {
        body: { name: 'Twenty percent', filters: [{ properties: [], rollout_percentage: 20 }] },
      })
    ).json();
    const created = await h.request('POST', `${base}experiments/`, {
      body: { name: 'With holdout', feature_flag_key: 'held-exp', holdout_id: holdout.id },
    });
    expect(created.statusCode, created.body).toBe(201);
    const experiment = created.json();
    expect(experiment.holdout).toMatchObject({ id: holdout.id, name: 'Twenty percent' });
    expect(experiment.feature_flag.filters.holdout).toEqual({ id: holdout.id, exclusion_percentage: 20 });
    await h.request('PATCH', `${base}experiments/${experiment.id}/`, {
      body: { start_date: new Date().toISOString() },
    });

    const counts: Record<string, number> = {};
    let expectedHeld = 0;
    for (let i = 0; i < 600; i++) {
      const id = `hold-user-${i}`;
      const variant = String(await variantOf('held-exp', id));
      counts[variant] = (counts[variant] ?? 0) + 1;
      if (heldOut(id, 20)) {
        expectedHeld++;
        expect(variant, id).toBe(`holdout-${holdout.id}`);
      } else expect(['control', 'test'], id).toContain(variant);
    }
    // About a fifth held out; the rest split between the variants.
    expect(counts[`holdout-${holdout.id}`]).toBe(expectedHeld);
    expect(expectedHeld).toBeGreaterThan(80);
    expect(expectedHeld).toBeLessThan(160);
    expect(counts.control).toBeGreaterThan(180);
    expect(counts.test).toBeGreaterThan(180);

    // posthog-node, evaluating on the server, sees the same.
    const c = new PostHog(h.boot.project_api_key, {
      host: url,
      flushAt: 1,
      flushInterval: 0,
      featureFlagsPollingInterval: 600_000,
    });
    clients.push(c);
    const held = Array.from({ length: 600 }, (_, i) => `hold-user-${i}`).find((id) =>
      heldOut(id, 20),
    ) as string;
    const kept = Array.from({ length: 600 }, (_, i) => `hold-user-${i}`).find(
      (id) => !heldOut(id, 20),
    ) as string;
    expect(await c.getFeatureFlag('held-exp', held)).toBe(`holdout-${holdout.id}`);
    expect(['control', 'test']).toContain(await c.getFeatureFlag('held-exp', kept));

    // A new share on the holdout reaches the experiment's flag at once (PostHog's holdout update).
    const widened = await h.request('PATCH', `${base}experiment_holdouts/${holdout.id}/`, {
      body: { filters: [{ properties: [], rollout_percentage: 50 }] },
    });
    expect(widened.statusCode, widened.body).toBe(200);
    const flagNow = (await h.request('GET', `${base}experiments/${experiment.id}/`)).json().feature_flag;
    expect(flagNow.filters.holdout).toEqual({ id: holdout.id, exclusion_percentage: 50 });
    const between = Array.from({ length: 600 }, (_, i) => `hold-user-${i}`).find(
      (id) => heldOut(id, 50) && !heldOut(id, 20),
    ) as string;
    expect(await variantOf('held-exp', between)).toBe(`holdout-${holdout.id}`);

    // Without the holdout the held-out user gets a variant again.
    const cleared = await h.request('PATCH', `${base}experiments/${experiment.id}/`, {
      body: { holdout_id: null },
    });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json().feature_flag.filters.holdout).toBeNull();
    expect(['control', 'test']).toContain(await variantOf('held-exp', held));
  }, 60_000);

  it('refuses an unknown holdout and a malformed holdout on a flag', async () => {
    const unknown = await h.request('POST', `${base}experiments/`, {
      body: { name: 'No such holdout', feature_flag_key: 'no-holdout', holdout_id: 999_999 },
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ type: 'validation_error', attr: 'holdout_id' });
    for (const holdout of [
      [],
      { id: 1 },
      { id: 'x', exclusion_percentage: 5 },
      { id: 1, exclusion_percentage: 101 },
    ]) {
      const bad = await h.request('POST', `${base}feature_flags/`, {
        body: {
          key: `bad-holdout-${Math.random().toString(36).slice(2)}`,
          filters: { groups: [{}], holdout },
        },
      });
      expect(bad.statusCode, JSON.stringify(holdout)).toBe(400);
      expect(bad.json()).toMatchObject({ type: 'validation_error' });
    }
  });
});
