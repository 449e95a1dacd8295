import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolkitAgent, type ToolkitAgent } from '../helpers/agent-toolkit.js';
import { type EventRow, insertEvents } from '../helpers/events-insert.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * PostHog's agent toolkit experiment tools, unchanged, against Burrow on loopback: the six tools
 * an assistant uses to create, launch, read results of, change and delete an experiment.
 */
let h: Harness;
let agent: ToolkitAgent;

beforeAll(async () => {
  h = await startHarness();
  const url = await h.app.listen({ host: '127.0.0.1', port: 0 });
  agent = await startToolkitAgent(h, url, ['experiment:write', 'feature_flag:write']);
}, 60_000);
afterAll(async () => h?.close());

const call = (name: string, params: unknown) => agent.call(name, params);

describe(`@posthog/agent-toolkit experiment tools against Burrow (${backend})`, () => {
  it('creates and launches an experiment, reads its exposures and results, updates and deletes it', async () => {
    const team = h.boot.project_id;
    // Seen before the experiment, so its metric names a known event.
    const chTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '000');
    let base = Date.now() - 60 * 60_000;
    const at = (ms: number) => chTime(base + ms);
    const rows: EventRow[] = [];
    const ev = (event: string, distinct: string, minutes: number, props: Record<string, unknown> = {}) =>
      rows.push({
        uuid: randomUUID(),
        event,
        properties: JSON.stringify(props),
        timestamp: at(minutes),
        team_id: team,
        distinct_id: distinct,
        person_id: randomUUID(),
      });
    ev('purchase', 'before', 0);
    await insertEvents(h.stores.events, rows.splice(0));

    const created = await call('experiment-create', {
      name: 'Toolkit checkout test',
      feature_flag_key: 'toolkit-checkout',
      primary_metrics: [{ name: 'Purchases', metric_type: 'mean', event_name: 'purchase' }],
      variants: [
        { key: 'control', rollout_percentage: 50 },
        { key: 'test', rollout_percentage: 50 },
      ],
      draft: false,
    });
    expect(created.name).toBe('Toolkit checkout test');
    // The toolkit drops `start_date` from what it creates (its payload schema omits it), so an
    // experiment starts as a draft whatever `draft` says, and `launch` is an update.
    expect(created.start_date).toBeNull();
    expect(created.feature_flag.filters.multivariate.variants.map((v: { key: string }) => v.key)).toEqual([
      'control',
      'test',
    ]);
    const id = created.id as number;
    const launched = await call('experiment-update', { experimentId: id, data: { launch: true } });
    expect(launched.start_date).toBeTruthy();
    expect(launched.feature_flag.active).toBe(true);

    // Ten people per variant see the flag just after launch; test buys three times as often.
    base = Date.parse(launched.start_date);
    for (let i = 0; i < 20; i++) {
      const variant = i < 10 ? 'control' : 'test';
      const who = `user-${i}`;
      const person = randomUUID();
      const push = (event: string, minutes: number, props: Record<string, unknown> = {}) =>
        rows.push({
          uuid: randomUUID(),
          event,
          properties: JSON.stringify(props),
          timestamp: at(minutes),
          team_id: team,
          distinct_id: who,
          person_id: person,
        });
      push('$feature_flag_called', 100 + i, {
        $feature_flag: 'toolkit-checkout',
        $feature_flag_response: variant,
      });
      for (let k = 0; k < (variant === 'test' ? 3 : 1); k++) push('purchase', 200 + i * 5 + k);
    }
    await insertEvents(h.stores.events, rows);
    while (Date.now() < base + 400) await new Promise((r) => setTimeout(r, 20));

    const results = await call('experiment-results-get', { experimentId: id, refresh: true });
    expect(typeof results, String(results)).toBe('object');
    const totals = Object.fromEntries(
      (results.exposures.total_exposures ? Object.entries(results.exposures.total_exposures) : []) as [
        string,
        number,
      ][],
    );
    expect(totals, JSON.stringify(results.exposures)).toMatchObject({ control: 10, test: 10 });
    expect(results.experiment).toMatchObject({ status: 'running', feature_flag_key: 'toolkit-checkout' });
    expect(results.metrics.primary.count).toBe(1);
    const primary = results.metrics.primary.results[0]?.data;
    expect(primary, 'the primary metric has a result').toBeTruthy();
    const variants = [primary.baseline, ...(primary.variant_results ?? [])];
    const byKey = Object.fromEntries(variants.map((v: { key: string; sum: number }) => [v.key, v.sum]));
    expect(byKey).toEqual({ control: 10, test: 30 });

    const updated = await call('experiment-update', {
      experimentId: id,
      data: { description: 'Checkout copy', conclude: 'won', conclusion_comment: 'Test sells more' },
    });
    expect(updated).toMatchObject({ description: 'Checkout copy', conclusion: 'won' });
    expect(updated.end_date).toBeTruthy();
    const got = await call('experiment-get', { experimentId: id });
    expect(got.description).toBe('Checkout copy');
    const all = await call('experiment-get-all', {});
    expect(JSON.stringify(all)).toContain('Toolkit checkout test');

    const deleted = await call('experiment-delete', { experimentId: id });
    expect(deleted.success).toBe(true);
    const after = await h.request('GET', `/api/projects/${team}/experiments/${id}/`);
    expect(after.statusCode).toBe(404);
  }, 60_000);
});
