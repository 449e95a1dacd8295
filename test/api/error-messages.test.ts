import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';

// Errors that tell a new user what to do: the valid choices, the field at fault (one `attr`
// form: segments joined by `__`, as DRF's exceptions_hog writes them), HogQL's own terms, and
// where the right key or token is.
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  const res = await h.request('POST', '/batch/', {
    key: null,
    body: {
      api_key: h.boot.project_api_key,
      batch: [{ event: 'e', distinct_id: 'a', properties: { plan: 'pro' } }],
    },
  });
  expect(res.statusCode).toBe(200);
}, 60_000);
afterAll(() => h?.close());

const query = (q: unknown) =>
  h.request('POST', `/api/environments/${h.boot.project_id}/query/`, { body: { query: q } });

describe('error messages', () => {
  it('an invalid choice lists the valid ones (domain and schema checks)', async () => {
    const bx = await h.request('POST', `/api/projects/${h.boot.project_id}/batch_exports/`, {
      body: {
        name: 'x',
        interval: 'hourly',
        destination: { type: 'HTTP', config: { url: 'http://x', token: 't' } },
      },
    });
    expect(bx.json()).toEqual({
      type: 'validation_error',
      code: 'invalid_choice',
      detail:
        '"hourly" is not a valid choice. Choose one of: hour, day, week, every 5 minutes, every 15 minutes.',
      attr: 'interval',
    });
    const members = await h.request(
      'GET',
      `/api/organizations/${h.boot.organization_id}/members/?order=password`,
    );
    expect(members.json()).toMatchObject({ code: 'invalid_choice', attr: 'order' });
    expect(members.json().detail).toMatch(/^"password" is not a valid choice\. Choose one of: .*joined_at/);
  });

  it('an unknown property filter operator names its attr and lists the operators', async () => {
    const res = await query({
      kind: 'EventsQuery',
      select: ['event'],
      properties: [
        { key: 'plan', operator: 'exact', value: 'pro', type: 'event' },
        { key: 'plan', operator: 'equals', value: 'pro', type: 'event' },
      ],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().attr).toBe('query__properties__1__operator');
    expect(res.json().detail).toContain('"equals"');
    expect(res.json().detail).toContain('Choose one of: exact, is_not, icontains');
    // Inside a wrapper the path goes through its source, and through nested groups.
    const wrapped = await query({
      kind: 'DataTableNode',
      source: {
        kind: 'EventsQuery',
        select: ['event'],
        properties: {
          type: 'AND',
          values: [{ type: 'OR', values: [{ key: 'plan', operator: 'nope', value: 1 }] }],
        },
      },
    });
    expect(wrapped.json().attr).toBe('query__source__properties__values__0__values__0__operator');
  });

  it('an unknown query kind lists the kinds and suggests the nearest', async () => {
    const res = await query({ kind: 'HogQLquery', query: 'select 1' });
    expect(res.statusCode).toBe(400);
    expect(res.json().attr).toBe('query__kind');
    expect(res.json().detail).toContain("Did you mean 'HogQLQuery'?");
    expect(res.json().detail).toContain('Kinds this server runs: HogQLQuery, EventsQuery');
  });

  it('uses one attr form, `__`, for nested query fields too', async () => {
    const res = await query({ kind: 'EventsQuery', select: ['event', 3] });
    expect(res.json()).toMatchObject({ code: 'parse_error', attr: 'query__select__1' });
    const bx = await h.request('POST', `/api/projects/${h.boot.project_id}/batch_exports/`, {
      body: { name: 'x', interval: 'hour', destination: { type: 'Nope', config: {} } },
    });
    expect(bx.json().attr).toBe('destination__type');
  });

  it.each([
    [
      'SELECT count() FROM events WHERE properties.plan = 1',
      /^Cannot compare or combine values of types String and Integer/,
    ],
    ['SELECT plus(event, 1) FROM events', /^Function plus cannot take arguments of types String and Integer/],
    ['SELECT sum(properties.plan) FROM events', /^Function sum cannot take an argument of type String/],
  ])('a HogQL type error (%s) is explained in HogQL terms', async (sql, message) => {
    const res = await query({ kind: 'HogQLQuery', query: sql });
    expect(res.statusCode).toBe(400);
    const { detail } = res.json();
    expect(detail).toMatch(message);
    expect(detail).toContain('toFloat(properties.plan)');
    expect(detail).not.toMatch(/__table|JSONExtract|UInt8|replaceRegexpAll|while executing/);
  });

  it('a project token sent as a bearer key is told what it is and what to use', async () => {
    const res = await h.request('GET', '/api/users/@me/', { key: h.boot.project_api_key });
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toMatch(/^This is a project API token \(phc_\.\.\.\)/);
    expect(res.json().detail).toContain('personal_api_key in bootstrap.json');
    const other = await h.request('GET', '/api/users/@me/', { key: 'phx_notakey' });
    expect(other.json().detail).toBe('Personal API key found in request Authorization header is invalid.');
  });

  it("a wrong capture token's message says where the token is", async () => {
    for (const path of ['/batch/', '/i/v0/e/']) {
      const body =
        path === '/batch/'
          ? { api_key: 'phc_wrong', batch: [{ event: 'e', distinct_id: 'a' }] }
          : { api_key: 'phc_wrong', event: 'e', distinct_id: 'a' };
      const res = await h.request('POST', path, { key: null, body });
      expect(res.statusCode).toBe(401);
      expect(res.json().detail).toContain('project_api_key in bootstrap.json');
      expect(res.json().detail).toContain('GET /api/projects/{project_id}/');
    }
  });
});
