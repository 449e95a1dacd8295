import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * Grouping and suppression rules (PostHog's `error_tracking/grouping_rules` and
 * `suppression_rules`): their API, and their effect at capture over real HTTP on loopback.
 */
describe(`error tracking rules (${backend})`, () => {
  let h: Harness;
  let base: string;
  let et: string;

  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    et = `/api/environments/${h.boot.project_id}/error_tracking/`;
  });
  afterAll(async () => {
    await h?.close();
  });

  async function hogql(query: string): Promise<unknown[][]> {
    const res = await h.request('POST', `/api/projects/${h.boot.project_id}/query/`, {
      body: { query: { kind: 'HogQLQuery', query } },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().results;
  }

  async function capture(events: object[]) {
    const res = await fetch(`${base}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: h.boot.project_api_key, batch: events }),
    });
    expect(res.status).toBe(200);
  }

  const exception = (distinctId: string, type: string, value: string, fn: string, extra: object = {}) => ({
    event: '$exception',
    distinct_id: distinctId,
    properties: {
      $exception_list: [
        {
          type,
          value,
          mechanism: { handled: true, type: 'generic' },
          stacktrace: {
            type: 'raw',
            frames: [
              { platform: 'node:javascript', function: fn, filename: '/srv/app.js', lineno: 7, in_app: true },
            ],
          },
        },
      ],
      ...extra,
    },
  });

  const group = (type: 'AND' | 'OR', values: object[]) => ({ type, values });
  const prop = (key: string, value: unknown, operator = 'exact') => ({ key, value, operator, type: 'event' });

  it('creates, lists, reads, changes, reorders and deletes rules as PostHog answers them', async () => {
    const filters = group('OR', [group('AND', [prop('$exception_types', 'DbError')])]);
    const created = await h.request('POST', `${et}grouping_rules/`, {
      body: { filters, assignee: { type: 'user', id: 1 }, description: 'all db errors' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const rule = created.json();
    expect(rule).toMatchObject({
      filters,
      order_key: 0,
      disabled_data: null,
      description: 'all db errors',
      issue: null,
    });
    expect(rule.id).toMatch(/^[0-9a-f-]{36}$/);

    const list = await h.request('GET', `${et}grouping_rules/`);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json()).toEqual({ results: [expect.objectContaining({ id: rule.id })] });

    const patched = await h.request('PATCH', `${et}grouping_rules/${rule.id}/`, {
      body: { description: 'database errors' },
    });
    expect(patched.statusCode, patched.body).toBe(204);
    const read = await h.request(
      'GET',
      `/api/projects/${h.boot.project_id}/error_tracking/grouping_rules/${rule.id}/`,
    );
    expect(read.json()).toMatchObject({ description: 'database errors', filters });

    const sup = await h.request('POST', `${et}suppression_rules/`, { body: { filters: group('AND', []) } });
    expect(sup.statusCode, sup.body).toBe(201);
    expect(sup.json()).toMatchObject({ order_key: 0, matched_count: 0 });
    const supList = await h.request('GET', `${et}suppression_rules/`);
    expect(supList.json()).toMatchObject({ count: 1, next: null, previous: null });
    const reordered = await h.request('PATCH', `${et}suppression_rules/reorder/`, {
      body: { orders: { [sup.json().id]: 5 } },
    });
    expect(reordered.statusCode, reordered.body).toBe(204);
    expect((await h.request('GET', `${et}suppression_rules/${sup.json().id}/`)).json().order_key).toBe(5);
    expect((await h.request('DELETE', `${et}suppression_rules/${sup.json().id}/`)).statusCode).toBe(204);
    expect((await h.request('GET', `${et}suppression_rules/${sup.json().id}/`)).statusCode).toBe(404);
    expect((await h.request('DELETE', `${et}grouping_rules/${rule.id}/`)).statusCode).toBe(204);
  });

  it('refuses filters that are not a property group with a 400 naming filters', async () => {
    for (const filters of [
      undefined,
      'x',
      [1],
      { type: 'XOR', values: [] },
      { type: 'AND', values: [{ value: 1 }] },
    ]) {
      const res = await h.request('POST', `${et}suppression_rules/`, {
        body: filters === undefined ? {} : { filters },
      });
      expect(res.statusCode, JSON.stringify(filters)).toBe(400);
      expect(res.json()).toMatchObject({ type: 'validation_error', attr: 'filters' });
    }
    const badOp = await h.request('POST', `${et}grouping_rules/`, {
      body: { filters: group('AND', [prop('$exception_types', 'x', 'explode')]) },
    });
    expect(badOp.statusCode).toBe(400);
    const badAssignee = await h.request('POST', `${et}grouping_rules/`, {
      body: { filters: group('AND', []), assignee: { type: 'team', id: 1 } },
    });
    expect(badAssignee.statusCode).toBe(400);
    expect((await h.request('PATCH', `${et}grouping_rules/not-a-uuid/`, { body: {} })).statusCode).toBe(404);
  });

  it('a grouping rule puts different exceptions in one issue, assigned, ahead of the client fingerprint', async () => {
    const created = await h.request('POST', `${et}grouping_rules/`, {
      body: {
        filters: group('OR', [group('OR', [prop('$exception_values', 'connection', 'icontains')])]),
        assignee: { type: 'role', id: '0190b6a4-1c4d-7c58-9a5e-1a2b3c4d5e6f' },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const rule = created.json();
    await capture([
      exception('grp', 'PgError', 'connection refused', 'query'),
      exception('grp', 'RedisError', 'lost connection', 'get', { $exception_fingerprint: 'client-fp' }),
      exception('grp', 'PgError', 'syntax error', 'query'),
    ]);
    const rows = await hogql(
      `select properties.$exception_issue_id, properties.$exception_fingerprint, properties.$exception_values
       from events where distinct_id = 'grp' order by properties.$exception_values`,
    );
    expect(rows).toHaveLength(3);
    const byValue = new Map(rows.map((r) => [JSON.parse(String(r[2]))[0], r]));
    const a = byValue.get('connection refused') as unknown[];
    const b = byValue.get('lost connection') as unknown[];
    const c = byValue.get('syntax error') as unknown[];
    expect(a[1]).toBe(`custom-rule:${rule.id}`);
    expect(b[1]).toBe(`custom-rule:${rule.id}`);
    expect(b[0]).toBe(a[0]);
    expect(c[0]).not.toBe(a[0]);
    expect(c[1]).toMatch(/^[0-9a-f]{128}$/);

    const issue = await h.request('GET', `${et}issues/${a[0]}/`);
    expect(issue.json()).toMatchObject({
      assignee: { type: 'role', id: '0190b6a4-1c4d-7c58-9a5e-1a2b3c4d5e6f' },
      fingerprints: [`custom-rule:${rule.id}`],
    });
    const list = await h.request('GET', `${et}grouping_rules/`);
    expect(list.json().results.find((r: { id: string }) => r.id === rule.id).issue).toMatchObject({
      id: a[0],
    });
    expect((await h.request('DELETE', `${et}grouping_rules/${rule.id}/`)).statusCode).toBe(204);
    // Deleted: the next such exception is grouped by its stack again.
    await capture([exception('grp-after', 'PgError', 'connection refused', 'query')]);
    const after = await hogql(
      `select properties.$exception_fingerprint from events where distinct_id = 'grp-after'`,
    );
    expect(after[0]?.[0]).toMatch(/^[0-9a-f]{128}$/);
  });

  it('rules apply in order_key order: the first matching grouping rule wins', async () => {
    const mk = async (value: string) =>
      (
        await h.request('POST', `${et}grouping_rules/`, {
          body: { filters: group('AND', [prop('$exception_types', value)]) },
        })
      ).json().id as string;
    const first = await mk('OrderError');
    const second = await mk('OrderError');
    await h.request('PATCH', `${et}grouping_rules/reorder/`, {
      body: { orders: { [first]: 2, [second]: 1 } },
    });
    await capture([exception('ord', 'OrderError', 'x', 'f')]);
    const rows = await hogql(
      `select properties.$exception_fingerprint from events where distinct_id = 'ord'`,
    );
    expect(rows[0]?.[0]).toBe(`custom-rule:${second}`);
    await h.request('DELETE', `${et}grouping_rules/${first}/`);
    await h.request('DELETE', `${et}grouping_rules/${second}/`);
  });

  it('a suppression rule drops matching exceptions (counted) and keeps the rest', async () => {
    const created = await h.request('POST', `${et}suppression_rules/`, {
      body: {
        filters: group('AND', [
          prop('$exception_types', 'ResizeObserverError'),
          prop('$exception_handled', 'true'),
        ]),
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id;
    await capture([
      exception('sup', 'ResizeObserverError', 'loop limit exceeded', 'observe'),
      exception('sup', 'ResizeObserverError', 'loop limit exceeded again', 'observe'),
      exception('sup', 'TypeError', 'kept', 'observe'),
      { event: 'pageview', distinct_id: 'sup', properties: {} },
    ]);
    const rows = await hogql(
      `select event, properties.$exception_types from events where distinct_id = 'sup' order by event`,
    );
    expect(rows.map((r) => r[0])).toEqual(['$exception', 'pageview']);
    expect(JSON.parse(String(rows[0]?.[1]))).toEqual(['TypeError']);
    expect((await h.request('GET', `${et}suppression_rules/${id}/`)).json().matched_count).toBe(2);
    const issues = await h.request('GET', `${et}issues/?search=ResizeObserverError`);
    expect(issues.json().count).toBe(0);
    // A change on this node applies to the next request at once.
    await h.request('PATCH', `${et}suppression_rules/${id}/`, {
      body: { filters: group('AND', [prop('$exception_types', 'NothingLikeThis')]) },
    });
    await capture([exception('sup2', 'ResizeObserverError', 'now kept', 'observe')]);
    expect(await hogql(`select count() from events where distinct_id = 'sup2'`)).toEqual([[1]]);
    await h.request('DELETE', `${et}suppression_rules/${id}/`);
  });

  it('negative operators on the $exception_* lists hold for every element', async () => {
    const created = await h.request('POST', `${et}suppression_rules/`, {
      body: {
        filters: group('AND', [
          prop('$exception_types', 'Keep', 'not_icontains'),
          prop('$exception_functions', 'noisy', 'exact'),
        ]),
      },
    });
    const id = created.json().id;
    await capture([exception('neg', 'DropMe', 'a', 'noisy'), exception('neg', 'KeepMe', 'b', 'noisy')]);
    const rows = await hogql(`select properties.$exception_types from events where distinct_id = 'neg'`);
    expect(rows.map((r) => JSON.parse(String(r[0]))[0])).toEqual(['KeepMe']);
    await h.request('DELETE', `${et}suppression_rules/${id}/`);
  });
});
