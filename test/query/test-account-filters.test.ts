import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, ok, type RawEvent, uuid } from '../helpers/query-lists.js';

/**
 * The project's test-account filters: saved through PATCH /api/projects/:id/ and applied by every
 * query that sets `filterTestAccounts` (HogQL's `{filters}` and the insights the console builds).
 */
let h: Harness;
let project: number;
let token: string;

const NOW = new Date('2025-06-15T12:00:00.000Z');
const ev = (event: string, distinct_id: string, email: string, hour: number): RawEvent => ({
  event,
  distinct_id,
  uuid: uuid(),
  timestamp: `2025-06-15T${String(hour).padStart(2, '0')}:00:00Z`,
  properties: { $set: { email } },
});

const patch = (body: Record<string, unknown>) => h.request('PATCH', `/api/projects/${project}/`, { body });

beforeAll(async () => {
  h = await startHarness({}, { now: () => NOW });
  project = h.boot.project_id;
  token = h.boot.project_api_key;
  await capture(h, token, project, [
    ev('$pageview', 'customer-1', 'ann@customer.com', 8),
    ev('$pageview', 'customer-2', 'bob@customer.com', 9),
    ev('$pageview', 'staff-1', 'eve@burrow.dev', 10),
    ev('$pageview', 'staff-1', 'eve@burrow.dev', 11),
  ]);
});
afterAll(async () => {
  await h.close();
});

const INTERNAL = [{ key: 'email', operator: 'not_icontains', value: 'burrow.dev', type: 'person' }];

describe('test account filters', () => {
  it('are saved on the project with the default-checked flag', async () => {
    const res = await patch({ test_account_filters: INTERNAL, test_account_filters_default_checked: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      test_account_filters: INTERNAL,
      test_account_filters_default_checked: true,
    });
    const again = await h.request('GET', `/api/projects/${project}/`);
    expect(again.json()).toMatchObject({ test_account_filters: INTERNAL });
  });

  it("apply to HogQL's {filters} when filterTestAccounts is set", async () => {
    const count = async (filterTestAccounts: boolean) =>
      (
        await ok(h, project, {
          kind: 'HogQLQuery',
          query: 'SELECT count() FROM events WHERE {filters}',
          filters: { filterTestAccounts },
        })
      ).results[0]?.[0];
    expect(await count(false)).toBe(4);
    expect(await count(true)).toBe(2);
  });

  it('apply to a Trends insight, and a change of filters is a new answer', async () => {
    await patch({ test_account_filters: INTERNAL });
    const trends = async (filterTestAccounts: boolean) => {
      const res = await h.request('POST', `/api/environments/${project}/query/`, {
        body: {
          query: {
            kind: 'TrendsQuery',
            series: [{ kind: 'EventsNode', event: '$pageview', math: 'total' }],
            dateRange: { date_from: '-1d' },
            filterTestAccounts,
          },
          refresh: 'blocking',
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().results as { count: number }[])[0]?.count;
    };
    expect(await trends(false)).toBe(4);
    expect(await trends(true)).toBe(2);
    // Customers only count now: the cached answer for the old filters must not be reused.
    await patch({
      test_account_filters: [
        ...INTERNAL,
        { key: 'email', operator: 'not_icontains', value: 'bob@', type: 'person' },
      ],
    });
    expect(await trends(true)).toBe(1);
  });

  it('that cannot apply make the queries using them a 400, never a 500', async () => {
    // Saved as given (PostHog stores the list as JSON); the query that applies it says what is wrong.
    const bad = [{ key: 'email', operator: 'bogus', value: 'x', type: 'person' }];
    expect((await patch({ test_account_filters: bad })).statusCode).toBe(200);
    const res = await h.request('POST', `/api/environments/${project}/query/`, {
      body: {
        query: {
          kind: 'HogQLQuery',
          query: 'SELECT count() FROM events WHERE {filters}',
          filters: { filterTestAccounts: true },
        },
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ type: 'validation_error' });
    expect(res.json().detail).toMatch(/bogus/);
    await patch({ test_account_filters: INTERNAL });
  });
});
