import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventRow, insertDistinctIds, insertEvents } from '../helpers/events-insert.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * The experiment groups events by distinct id before resolving the person: the person must be
 * the one `person_id` gives in each persons-on-events mode. Two distinct ids written with
 * different person ids but mapped to one person, and one unmapped distinct id.
 */
describe(`Experiment persons by mode (${backend})`, () => {
  let h: Harness;
  let team: number;
  let expId: number;
  const pid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const rows: EventRow[] = [];
  const ev = (event: string, distinct: string, person: number, at: string, props = {}) =>
    rows.push({
      uuid: randomUUID(),
      event,
      properties: JSON.stringify(props),
      timestamp: `${at.replace('T', ' ').replace('Z', '')}.000000`,
      team_id: team,
      distinct_id: distinct,
      person_id: pid(person),
    });
  const exposure = (distinct: string, person: number, at: string, variant: string) =>
    ev('$feature_flag_called', distinct, person, at, {
      $feature_flag: 'mode-flag',
      $feature_flag_response: variant,
    });

  beforeAll(async () => {
    h = await startHarness();
    team = h.boot.project_id;
    const experiments = `/api/environments/${team}/experiments/`;
    expId = (
      await h.request('POST', experiments, { body: { name: 'M', feature_flag_key: 'mode-flag' } })
    ).json().id;
    await h.request('PATCH', `${experiments}${expId}/`, {
      body: { start_date: '2026-11-01T00:00:00Z', end_date: '2026-11-05T00:00:00Z' },
    });
    // qa and qb: written as persons 1 and 2, both mapped to person 1 (a merge).
    exposure('qa', 1, '2026-11-01T10:00:00Z', 'control');
    exposure('qb', 2, '2026-11-02T10:00:00Z', 'control');
    ev('purchase', 'qb', 2, '2026-11-01T11:00:00Z');
    ev('purchase', 'qa', 1, '2026-11-01T12:00:00Z');
    // qc: no mapping, person 3 on the event, test.
    exposure('qc', 3, '2026-11-01T10:00:00Z', 'test');
    ev('purchase', 'qc', 3, '2026-11-01T12:00:00Z');
    await insertEvents(h.stores.events, rows);
    await insertDistinctIds(h.stores.events, [
      { team_id: team, distinct_id: 'qa', person_id: pid(1), version: 0 },
      { team_id: team, distinct_id: 'qb', person_id: pid(1), version: 1 },
    ]);
  });
  afterAll(async () => h?.close());

  const mean = async (mode?: string) => {
    const res = await h.request('POST', `/api/environments/${team}/query/`, {
      body: {
        query: {
          kind: 'ExperimentQuery',
          experiment_id: expId,
          metric: {
            kind: 'ExperimentMetric',
            metric_type: 'mean',
            source: { kind: 'EventsNode', event: 'purchase' },
          },
          ...(mode ? { modifiers: { personsOnEventsMode: mode } } : {}),
        },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    const pick = (v: { number_of_samples: number; sum: number }) => [v.number_of_samples, v.sum];
    return { control: pick(body.baseline), test: pick(body.variant_results[0]) };
  };

  it('merged distinct ids are one person (first exposure across them), unmapped ones their own', async () => {
    // Person 1 exposed at qa's exposure: both purchases follow it. Person 3 from the event.
    expect(await mean()).toEqual({ control: [1, 2], test: [1, 1] });
    expect(await mean('person_id_override_properties_joined')).toEqual({ control: [1, 2], test: [1, 1] });
  });

  it('disabled: the mapping only (the unmapped distinct id has no person)', async () => {
    expect(await mean('disabled')).toEqual({ control: [1, 2], test: [0, 0] });
  });

  it('no override: the person id written on the event', async () => {
    // Person 2's purchase is before its own exposure.
    expect(await mean('person_id_no_override_properties_on_events')).toEqual({
      control: [2, 1],
      test: [1, 1],
    });
  });
});
