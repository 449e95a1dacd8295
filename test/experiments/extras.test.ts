import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/** `experiment_holdouts/` and `experiment_saved_metrics/`: CRUD, checks, project isolation. */
describe(`Experiment holdouts and saved metrics (${backend})`, () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness();
    base = `/api/projects/${h.boot.project_id}/`;
  });
  afterAll(async () => h?.close());

  it('holdouts: create, list, change, delete; bad filters are 400', async () => {
    const path = `${base}experiment_holdouts/`;
    const created = await h.request('POST', path, {
      body: { name: 'Global 10%', filters: [{ properties: [], rollout_percentage: 10 }] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const hold = created.json();
    expect(hold).toMatchObject({
      name: 'Global 10%',
      description: '',
      filters: [{ properties: [], rollout_percentage: 10, variant: null }],
    });
    expect((await h.request('GET', path)).json()).toMatchObject({ count: 1, results: [{ id: hold.id }] });
    const changed = await h.request('PATCH', `${path}${hold.id}/`, {
      body: { description: 'kept out', filters: [{ rollout_percentage: 5 }] },
    });
    expect(changed.json()).toMatchObject({
      name: 'Global 10%',
      description: 'kept out',
      filters: [{ rollout_percentage: 5 }],
    });
    for (const filters of [[], [{ rollout_percentage: 101 }], [{ properties: 'x', rollout_percentage: 1 }]]) {
      const bad = await h.request('POST', path, { body: { name: 'x', filters } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ type: 'validation_error', attr: 'filters' });
    }
    const noName = await h.request('POST', path, { body: { filters: [{ rollout_percentage: 5 }] } });
    expect(noName.json()).toMatchObject({ type: 'validation_error', attr: 'name' });
    expect((await h.request('DELETE', `${path}${hold.id}/`)).statusCode).toBe(204);
    expect((await h.request('GET', `${path}${hold.id}/`)).statusCode).toBe(404);
    // Another project's owner cannot see ours.
    const other = await h.owner('Other');
    const again = (
      await h.request('POST', path, { body: { name: 'y', filters: [{ rollout_percentage: 1 }] } })
    ).json();
    const foreign = await h.request(
      'GET',
      `/api/projects/${other.projectId}/experiment_holdouts/${again.id}/`,
      {
        key: other.key,
      },
    );
    expect(foreign.statusCode).toBe(404);
  });

  it('saved metrics: an ExperimentMetric query, checked like ExperimentQuery checks one', async () => {
    const path = `${base}experiment_saved_metrics/`;
    const query = {
      kind: 'ExperimentMetric',
      metric_type: 'mean',
      source: { kind: 'EventsNode', event: 'purchase', math: 'sum', math_property: 'amount' },
    };
    const created = await h.request('POST', path, {
      body: { name: 'Revenue', query, metadata: { type: 'primary' } },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ name: 'Revenue', query, metadata: { type: 'primary' }, tags: [] });
    const id = created.json().id;
    const renamed = await h.request('PATCH', `${path}${id}/`, { body: { name: 'Revenue (sum)' } });
    expect(renamed.json()).toMatchObject({ name: 'Revenue (sum)', query });
    const bad = await h.request('PATCH', `${path}${id}/`, {
      body: {
        query: { kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', math: 'sum' } },
      },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ type: 'validation_error', attr: 'query__source' });
    const none = await h.request('POST', path, { body: { name: 'x' } });
    expect(none.statusCode).toBe(400);
    expect(none.json().attr).toBe('query');
    expect((await h.request('GET', path)).json().count).toBe(1);
  });

  it("an experiment's holdout_id and saved_metrics_ids are answered as holdout and saved_metrics", async () => {
    const hold = (
      await h.request('POST', `${base}experiment_holdouts/`, {
        body: { name: 'H', filters: [{ rollout_percentage: 10 }] },
      })
    ).json();
    const query = {
      kind: 'ExperimentMetric',
      metric_type: 'mean',
      source: { kind: 'EventsNode', event: 'a' },
    };
    const saved = (
      await h.request('POST', `${base}experiment_saved_metrics/`, { body: { name: 'S', query } })
    ).json();
    const created = await h.request('POST', `${base}experiments/`, {
      body: {
        name: 'Linked',
        feature_flag_key: 'linked',
        holdout_id: hold.id,
        saved_metrics_ids: [{ id: saved.id, metadata: { type: 'secondary' } }],
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().holdout).toMatchObject({
      id: hold.id,
      name: 'H',
      filters: [{ rollout_percentage: 10 }],
    });
    expect(created.json().saved_metrics).toEqual([
      expect.objectContaining({ saved_metric: saved.id, name: 'S', query, metadata: { type: 'secondary' } }),
    ]);
    await h.request('DELETE', `${base}experiment_holdouts/${hold.id}/`);
    const after = (await h.request('GET', `${base}experiments/${created.json().id}/`)).json();
    expect(after.holdout).toBeNull();
  });
});
