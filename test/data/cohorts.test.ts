import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, ok, otherProject, query, type RawEvent, uuid } from '../helpers/query-lists.js';
import { sendRecordings } from '../helpers/recordings.js';

/** Cohorts: CRUD, dynamic (properties and behaviour) calculated in the background, static, filters. */
let h: Harness;
let project: number;
let other: Awaited<ReturnType<typeof otherProject>>;

const ev = (event: string, distinct_id: string, properties: Record<string, unknown> = {}): RawEvent => ({
  event,
  distinct_id,
  timestamp: new Date(Date.now() - 3_600_000).toISOString(),
  uuid: uuid(),
  properties,
});

type Cohort = {
  id: number;
  count: number | null;
  is_calculating: boolean;
  last_calculation: string | null;
  errors_calculating: number;
};

const post = async (body: unknown) => {
  const res = await h.request('POST', `/api/projects/${project}/cohorts/`, { body });
  return res;
};

/** Waits until the background calculation has finished once. */
async function calculated(id: number): Promise<Cohort> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const c = (await h.request('GET', `/api/projects/${project}/cohorts/${id}/`)).json() as Cohort;
    if (c.last_calculation && !c.is_calculating) return c;
    if (c.errors_calculating > 0 || Date.now() > deadline) throw new Error(JSON.stringify(c));
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  h = await startHarness();
  project = h.boot.project_id;
  other = await otherProject(h);
  await capture(h, h.boot.project_api_key, project, [
    ev('$pageview', 'a', { $set: { plan: 'pro', email: 'a@x.test' } }),
    ev('purchase', 'a'),
    ev('purchase', 'a'),
    ev('purchase', 'a'),
    ev('$pageview', 'b', { $set: { plan: 'pro' } }),
    ev('purchase', 'b'),
    ev('$pageview', 'c', { $set: { plan: 'free' } }),
  ]);
});
afterAll(async () => h?.close());

const proFilters = {
  properties: {
    type: 'OR',
    values: [{ type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person', operator: 'exact' }] }],
  },
};
const buyers = {
  properties: {
    type: 'OR',
    values: [
      {
        type: 'AND',
        values: [
          {
            type: 'behavioral',
            key: 'purchase',
            event_type: 'events',
            value: 'performed_event_multiple',
            operator: 'gte',
            operator_value: 2,
            time_value: 30,
            time_interval: 'day',
          },
        ],
      },
    ],
  },
};

describe('cohorts', () => {
  let pro: number;
  let heavy: number;
  let fixed: number;

  it('creates dynamic cohorts and calculates them in the background', async () => {
    const res = await post({ name: 'Pro users', filters: proFilters });
    expect(res.statusCode, res.body).toBe(201);
    pro = (res.json() as Cohort).id;
    expect((await calculated(pro)).count).toBe(2);
    heavy = ((await post({ name: 'Heavy buyers', filters: buyers })).json() as Cohort).id;
    expect((await calculated(heavy)).count).toBe(1);
    const persons = (await h.request('GET', `/api/projects/${project}/cohorts/${heavy}/persons/`)).json() as {
      results: Array<{ distinct_ids: string[] }>;
    };
    expect(persons.results.map((p) => p.distinct_ids)).toEqual([['a']]);
  });

  it('answers IN COHORT in HogQL, cohort filters in events and persons lists and in queries', async () => {
    const byId = await ok(h, project, {
      kind: 'HogQLQuery',
      query: `SELECT count() FROM events WHERE person_id IN COHORT ${pro}`,
    });
    expect(byId.results).toEqual([[6]]);
    const byName = await ok(h, project, {
      kind: 'HogQLQuery',
      query: `SELECT count() FROM persons WHERE id IN COHORT 'Heavy buyers'`,
    });
    expect(byName.results).toEqual([[1]]);
    const missing = await query(h, project, {
      kind: 'HogQLQuery',
      query: 'SELECT 1 FROM events WHERE person_id IN COHORT 999',
    });
    expect(missing.statusCode).toBe(400);
    const filter = encodeURIComponent(JSON.stringify([{ type: 'cohort', key: 'id', value: heavy }]));
    expect(
      (
        (await h.request('GET', `/api/projects/${project}/events/?properties=${filter}`)).json() as {
          results: unknown[];
        }
      ).results,
    ).toHaveLength(4);
    expect(
      (
        (await h.request('GET', `/api/projects/${project}/persons/?properties=${filter}`)).json() as {
          results: unknown[];
        }
      ).results,
    ).toHaveLength(1);
    const events = await ok(h, project, {
      kind: 'EventsQuery',
      select: ['event'],
      properties: [{ type: 'cohort', key: 'id', value: pro, operator: 'not_in' }],
    });
    expect(events.results).toEqual([['$pageview']]);
    const trends = await ok(h, project, {
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: 'purchase', math: 'total' }],
      dateRange: { date_from: '-7d' },
      properties: [{ type: 'cohort', key: 'id', value: heavy }],
    });
    const counts = (trends.results as unknown as Array<{ count: number }>).map((r) => r.count);
    expect(counts).toEqual([3]);
  });

  it('filters recordings by cohort', async () => {
    const start = Date.now() - 600_000;
    await sendRecordings(h, [
      { sessionId: 'rec-a', distinctId: 'a', start, durationMs: 5000 },
      { sessionId: 'rec-c', distinctId: 'c', start: start + 1000, durationMs: 5000 },
    ]);
    const ids = async (properties: unknown) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const res = await h.request(
          'GET',
          `/api/environments/${project}/session_recordings/?properties=${encodeURIComponent(JSON.stringify(properties))}`,
        );
        expect(res.statusCode, res.body).toBe(200);
        const got = (res.json() as { results: Array<{ id: string }> }).results.map((r) => r.id);
        if (got.length > 0 || Date.now() > deadline) return got;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    expect(await ids([{ type: 'cohort', key: 'id', value: heavy }])).toEqual(['rec-a']);
    expect(await ids([{ type: 'cohort', key: 'id', value: heavy, operator: 'not_in' }])).toEqual(['rec-c']);
    const unknown = await h.request(
      'GET',
      `/api/environments/${project}/session_recordings/?properties=${encodeURIComponent(JSON.stringify([{ type: 'cohort', key: 'id', value: 999 }]))}`,
    );
    expect(unknown.statusCode).toBe(400);
  });

  it('static cohorts take persons by distinct id and by CSV, with limits', async () => {
    const res = await post({ name: 'Hand picked', is_static: true });
    fixed = (res.json() as Cohort).id;
    const add = await h.request(
      'PATCH',
      `/api/projects/${project}/cohorts/${fixed}/add_persons_to_static_cohort/`,
      {
        body: { distinct_ids: ['c', 'nobody'] },
      },
    );
    expect(add.statusCode).toBe(200);
    const csv = await h.app.inject({
      method: 'POST',
      url: `/api/projects/${project}/cohorts/${fixed}/upload_csv/`,
      headers: { authorization: `Bearer ${h.key}`, 'content-type': 'text/csv' },
      payload: 'distinct_id\nb\nunknown\n',
    });
    expect(csv.statusCode, csv.body).toBe(200);
    expect((csv.json() as Cohort).count).toBe(2);
    const huge = await h.app.inject({
      method: 'POST',
      url: `/api/projects/${project}/cohorts/${fixed}/upload_csv/`,
      headers: { authorization: `Bearer ${h.key}`, 'content-type': 'text/csv' },
      payload: 'x,'.repeat(600_000),
    });
    expect(huge.statusCode).toBe(413);
    const rows = await h.app.inject({
      method: 'POST',
      url: `/api/projects/${project}/cohorts/${fixed}/upload_csv/`,
      headers: { authorization: `Bearer ${h.key}`, 'content-type': 'text/csv' },
      payload: Array.from({ length: 10_001 }, (_, i) => `d${i}`).join('\n'),
    });
    expect(rows.statusCode).toBe(400);
    const members = await ok(h, project, {
      kind: 'HogQLQuery',
      query: `SELECT count() FROM persons WHERE id IN COHORT ${fixed}`,
    });
    expect(members.results).toEqual([[2]]);
    // Nothing was calculated for it, and nothing reported as failed (the console shows failures).
    const deadline = Date.now() + 1_000;
    while (Date.now() < deadline) {
      const c = (await h.request('GET', `/api/projects/${project}/cohorts/${fixed}/`)).json() as Cohort;
      expect([c.errors_calculating, c.is_calculating]).toEqual([0, false]);
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  it('refuses bad criteria, soft deletes, and keeps other projects out', async () => {
    expect(
      (
        await post({
          name: 'x',
          filters: {
            properties: {
              type: 'AND',
              values: [{ type: 'behavioral', key: 'e', value: 'performed_event', time_value: 0 }],
            },
          },
        })
      ).statusCode,
    ).toBe(400);
    expect((await post({ name: 'x' })).statusCode).toBe(400);
    expect(
      (
        await post({
          name: 'x',
          filters: { properties: { type: 'AND', values: [{ key: 'k', type: 'event' }] } },
        })
      ).statusCode,
    ).toBe(400);
    expect((await h.request('DELETE', `/api/projects/${project}/cohorts/${pro}/`)).statusCode).toBe(405);
    const del = await h.request('PATCH', `/api/projects/${project}/cohorts/${pro}/`, {
      body: { deleted: true },
    });
    expect(del.json()).toMatchObject({ deleted: true });
    const list = (await h.request('GET', `/api/projects/${project}/cohorts/`)).json() as {
      results: Cohort[];
    };
    expect(list.results.map((c) => c.id)).not.toContain(pro);
    expect(
      (await h.request('GET', `/api/projects/${other.projectId}/cohorts/${heavy}/`, { key: other.key }))
        .statusCode,
    ).toBe(404);
    const theirs = await query(
      h,
      other.projectId,
      { kind: 'HogQLQuery', query: `SELECT count() FROM persons WHERE id IN COHORT ${heavy}` },
      other.key,
    );
    expect(theirs.statusCode).toBe(400);
  });
});
