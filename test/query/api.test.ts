import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';

// /query with HogQLQuery end to end: events arrive through capture, queries through HTTP.
let h: Harness;
let clock = new Date('2025-01-20T12:00:00Z');
let base: string;
let other: { key: string; projectId: number };

const post = (body: unknown, key?: string, project = h.boot.project_id) =>
  h.request('POST', `/api/environments/${project}/query/`, { body, ...(key ? { key } : {}) });
const hogql = (query: string, extra: Record<string, unknown> = {}) => ({
  query: { kind: 'HogQLQuery', query },
  ...extra,
});

beforeAll(async () => {
  h = await startHarness({}, { now: () => clock });
  base = `/api/environments/${h.boot.project_id}/query/`;
  const events = [
    {
      event: '$pageview',
      distinct_id: 'u1',
      properties: { $browser: 'Chrome', plan: 'pro' },
      timestamp: '2025-01-15T10:00:00Z',
    },
    {
      event: '$pageview',
      distinct_id: 'u2',
      properties: { $browser: 'Firefox' },
      timestamp: '2025-01-16T10:00:00Z',
    },
    {
      event: 'signup',
      distinct_id: 'u1',
      properties: { $browser: 'Chrome' },
      timestamp: '2025-01-17T10:00:00Z',
    },
  ];
  const res = await h.request('POST', '/batch/', {
    key: null,
    body: { api_key: h.boot.project_api_key, batch: events },
  });
  expect(res.statusCode).toBe(200);
  const o = await h.owner('other');
  other = { key: o.key, projectId: o.projectId };
  const res2 = await h.request('POST', '/batch/', {
    key: null,
    body: {
      api_key: (await h.request('GET', `/api/projects/${o.projectId}/`, { key: o.key })).json().api_token,
      batch: [{ event: 'SECRET', distinct_id: 'x' }],
    },
  });
  expect(res2.statusCode).toBe(200);
}, 60_000);
afterAll(() => h?.close());

describe('POST /query HogQLQuery', () => {
  it('runs and answers PostHog fields', async () => {
    const res = await post(hogql('SELECT event, count() AS c FROM events GROUP BY event ORDER BY c DESC'));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.results).toEqual([
      ['$pageview', 2],
      ['signup', 1],
    ]);
    expect(body.columns).toEqual(['event', 'c']);
    expect(body.types[0]).toEqual(['event', 'String']);
    expect(body.hogql).toBe(
      'SELECT event, count() AS c FROM events GROUP BY event ORDER BY c DESC LIMIT 100',
    );
    expect(body.clickhouse).toContain('equals(events.team_id');
    expect(body).toMatchObject({ is_cached: false, timezone: 'UTC', hasMore: false, limit: 100, offset: 0 });
    expect(body.cache_key).toMatch(/^cache_/);
    expect(body.last_refresh).toBe('2025-01-20T12:00:00Z');
  });

  it('paginates queries without a LIMIT and not those with one', async () => {
    const paged = (await post(hogql('SELECT number FROM numbers(150)'))).json();
    expect(paged.results).toHaveLength(100);
    expect(paged.hasMore).toBe(true);
    const limited = (await post(hogql('SELECT number FROM numbers(150) LIMIT 120'))).json();
    expect(limited.results).toHaveLength(120);
    expect(limited.hasMore).toBeUndefined();
  });

  it('never shows another project its data', async () => {
    const mine = (await post(hogql("SELECT count() FROM events WHERE event = 'SECRET'"))).json();
    expect(mine.results).toEqual([[0]]);
    const theirs = await post(hogql('SELECT event FROM events'), other.key, other.projectId);
    expect(theirs.json().results).toEqual([['SECRET']]);
  });

  it('takes values, variables and the {filters} placeholder', async () => {
    const v = await post(hogql('SELECT count() FROM events WHERE event = {e}', {}), undefined);
    expect(v.statusCode).toBe(400);
    const values = await post({
      query: {
        kind: 'HogQLQuery',
        query: 'SELECT count() FROM events WHERE event = {e}',
        values: { e: 'signup' },
      },
    });
    expect(values.json().results).toEqual([[1]]);
    const variables = {
      var1: { variableId: 'var1', code_name: 'ev', value: '$pageview' },
    };
    const q = {
      kind: 'HogQLQuery',
      query: 'SELECT count() FROM events WHERE event = {variables.ev}',
      variables,
    };
    expect((await post({ query: q })).json().results).toEqual([[2]]);
    const overridden = await post({ query: q, variables_override: { var1: { value: 'signup' } } });
    expect(overridden.json().results).toEqual([[1]]);
    const filters = {
      kind: 'HogQLQuery',
      query: 'SELECT count() FROM events WHERE {filters}',
      filters: { properties: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }] },
    };
    expect((await post({ query: filters })).json().results).toEqual([[2]]);
    const dated = await post({
      query: filters,
      filters_override: { date_from: '2025-01-16', date_to: '2025-01-18' },
    });
    expect(dated.json().results).toEqual([[1]]);
  });

  it('unwraps DataTableNode and checks the kind in the path', async () => {
    const wrapped = await post({
      query: { kind: 'DataTableNode', source: { kind: 'HogQLQuery', query: 'SELECT 1' } },
    });
    expect(wrapped.json().results).toEqual([[1]]);
    const byKind = await h.request('POST', `${base}HogQLQuery/`, { body: hogql('SELECT 2') });
    expect(byKind.json().results).toEqual([[2]]);
    const mismatch = await h.request('POST', `${base}EventsQuery/`, { body: hogql('SELECT 2') });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().detail).toBe(
      'Query kind mismatch: path kind "EventsQuery" does not match body kind "HogQLQuery".',
    );
  });

  it('answers bad queries with PostHog error bodies', async () => {
    const syntax = await post(hogql('SELEC 1'));
    expect(syntax.statusCode).toBe(400);
    expect(syntax.json()).toMatchObject({ type: 'validation_error', code: 'invalid', attr: null });
    const unknown = await post(hogql('SELECT nope FROM events'));
    expect(unknown.json()).toEqual({
      type: 'validation_error',
      code: 'invalid',
      detail: 'Unable to resolve field: nope',
      attr: null,
    });
    const engine = await post(hogql("SELECT plus('a', 1)"));
    expect(engine.statusCode).toBe(400);
    expect(engine.json()).toMatchObject({ type: 'validation_error', code: 'illegal_type_of_argument' });
    expect(engine.json().detail).not.toContain('SETTINGS');
    const tomato = await post({ query: { kind: 'Tomato Soup' } });
    expect(tomato.statusCode).toBe(400);
    expect(tomato.json().code).toBe('parse_error');
    const unsupported = await post({ query: { kind: 'WebPageURLSearchQuery' } });
    expect(unsupported.json()).toMatchObject({
      code: 'invalid_input',
      detail:
        'Unsupported query kind: WebPageURLSearchQuery. Kinds this server runs: HogQLQuery, EventsQuery, ActorsQuery, SessionsQuery, TracesQuery, TraceQuery, ErrorTrackingQuery, ErrorTrackingIssueCorrelationQuery, TrendsQuery, StickinessQuery, LifecycleQuery, FunnelsQuery, RetentionQuery, PathsQuery, WebOverviewQuery, WebStatsTableQuery, WebTrendsQuery, WebExternalClicksTableQuery, WebGoalsQuery, WebVitalsQuery, WebVitalsPathBreakdownQuery, SessionAttributionExplorerQuery, ExperimentExposureQuery, ExperimentQuery, ExperimentTrendsQuery, ExperimentFunnelsQuery, HogQLMetadata, DatabaseSchemaQuery, DataTableNode, DataVisualizationNode, InsightVizNode.',
    });
    expect((await post({})).statusCode).toBe(400);
    expect((await post(hogql('SELECT 1', { refresh: 'sometimes' }))).statusCode).toBe(400);
  });

  it('requires query:read and a project of the caller', async () => {
    const noScope = await h.user({
      organizationId: h.boot.organization_id,
      key: { scopes: ['project:read'] },
    });
    const res = await post(hogql('SELECT 1'), noScope.key);
    expect(res.statusCode).toBe(403);
    const other404 = await post(hogql('SELECT 1'), other.key);
    expect([403, 404]).toContain(other404.statusCode);
    expect((await h.request('POST', `${base}check_auth_for_async/`)).json()).toEqual({ user: 'ok' });
  });
});

describe('refresh modes and the cache', () => {
  const q = (extra: Record<string, unknown>) =>
    hogql("SELECT count() FROM events WHERE event != 'refresh-test'", extra);

  it('blocking serves a fresh cache and recalculates a stale one', async () => {
    clock = new Date('2025-01-20T12:00:00Z');
    const first = (await post(q({ refresh: 'blocking' }))).json();
    expect(first.is_cached).toBe(false);
    const second = (await post(q({ refresh: 'blocking' }))).json();
    expect(second.is_cached).toBe(true);
    expect(second.cache_key).toBe(first.cache_key);
    clock = new Date('2025-01-20T12:06:00Z'); // HogQL goes stale after 5 minutes
    const third = (await post(q({ refresh: 'blocking' }))).json();
    expect(third.is_cached).toBe(false);
    expect(third.last_refresh).toBe('2025-01-20T12:06:00Z');
    const forced = (await post(q({ refresh: 'force_blocking' }))).json();
    expect(forced.is_cached).toBe(false);
    const missing = (await post(q({}))).json();
    expect(missing.is_cached).toBe(true);
  });

  it('force_cache answers a cache miss at once and never calculates; missing refresh is blocking', async () => {
    clock = new Date('2025-01-22T00:00:00Z');
    const sql = "SELECT count() FROM events WHERE event = 'force-cache-test'";
    const miss = await post(hogql(sql, { refresh: 'force_cache' }));
    expect(miss.statusCode).toBe(200);
    expect(miss.json()).toEqual({ cache_key: expect.any(String), query_status: null });
    // Nothing was started: asking again is still a miss, with the same key.
    const again = await post(hogql(sql, { refresh: 'force_cache' }));
    expect(again.json()).toEqual({ cache_key: miss.json().cache_key, query_status: null });
    // The default (no refresh) is blocking: it calculates and fills the cache...
    const blocking = (await post(hogql(sql))).json();
    expect(blocking).toMatchObject({ is_cached: false, results: [[0]], cache_key: miss.json().cache_key });
    // ...which force_cache then serves, however old.
    clock = new Date('2025-01-22T01:00:00Z'); // stale for blocking, still in the cache
    const served = (await post(hogql(sql, { refresh: 'force_cache' }))).json();
    expect(served).toMatchObject({ is_cached: true, results: [[0]] });
  });

  it('a force_cache miss shows the status of a calculation of that query already running', async () => {
    clock = new Date('2025-01-23T00:00:00Z');
    const slow = 'SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) = 2';
    const started = await post(hogql(slow, { refresh: 'force_async', client_query_id: 'fc-running' }));
    expect(started.statusCode).toBe(202);
    const miss = await post(hogql(slow, { refresh: 'force_cache' }));
    expect(miss.statusCode).toBe(202);
    expect(miss.json()).toMatchObject({
      cache_key: expect.any(String),
      query_status: { id: 'fc-running', complete: false },
    });
    expect((await h.request('DELETE', `${base}fc-running/`)).statusCode).toBe(204);
  });

  it('async returns 202 on a miss and the status answers', async () => {
    clock = new Date('2025-01-21T00:00:00Z');
    const miss = await post(hogql('SELECT 42', { refresh: 'async', client_query_id: 'async-test-1' }));
    expect(miss.statusCode).toBe(202);
    const status = miss.json().query_status;
    expect(status).toMatchObject({ id: 'async-test-1', complete: false, query_async: true });
    let answer = await h.request('GET', `${base}async-test-1/`);
    for (let i = 0; i < 50 && answer.statusCode === 202; i++) {
      await new Promise((r) => setTimeout(r, 50));
      answer = await h.request('GET', `${base}async-test-1/`);
    }
    expect(answer.statusCode).toBe(200);
    expect(answer.json().query_status.results.results).toEqual([[42]]);
    const hit = await post(hogql('SELECT 42', { refresh: 'async' }));
    expect(hit.statusCode).toBe(200);
    expect(hit.json().is_cached).toBe(true);
    const forced = await post(
      hogql('SELECT 43', { refresh: 'force_async', client_query_id: 'async-test-2' }),
    );
    expect(forced.statusCode).toBe(202);
    expect(Object.keys(forced.json())).toEqual(['query_status']);
  });

  it('status of an unknown or foreign query is 404', async () => {
    expect((await h.request('GET', `${base}nope/`)).statusCode).toBe(404);
    await post(hogql('SELECT 44', { refresh: 'force_async', client_query_id: 'mine-1' }));
    const foreign = await h.request('GET', `/api/environments/${other.projectId}/query/mine-1/`, {
      key: other.key,
    });
    expect(foreign.statusCode).toBe(404);
  });

  it('cancels a slow query and says so', async () => {
    const slow = hogql('SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) = 1', {
      refresh: 'force_async',
      client_query_id: 'slow-1',
    });
    expect((await post(slow)).statusCode).toBe(202);
    await new Promise((r) => setTimeout(r, 300));
    const cancel = await h.request('DELETE', `${base}slow-1/`);
    expect(cancel.statusCode).toBe(204);
    let answer = await h.request('GET', `${base}slow-1/`);
    for (let i = 0; i < 50 && answer.statusCode === 202; i++) {
      await new Promise((r) => setTimeout(r, 50));
      answer = await h.request('GET', `${base}slow-1/`);
    }
    expect(answer.statusCode).toBe(400);
    expect(answer.json().query_status).toMatchObject({
      complete: true,
      error: true,
      error_message: 'Query was cancelled.',
    });
    // The engine is free again.
    expect((await post(hogql('SELECT 7'))).json().results).toEqual([[7]]);
  });
});
