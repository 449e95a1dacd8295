import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * ErrorTrackingIssueCorrelationQuery on /query/: per active issue and event, the 2×2 table of the
 * last 6 hours' sessions (exception before the event, event only, exception only, neither) and its
 * odds ratio, checked against PostHog's own formulation written by hand in HogQL over the issue
 * ids that capture stored on each exception.
 */
describe(`ErrorTrackingIssueCorrelationQuery (${backend})`, () => {
  let h: Harness;
  let base: string;
  const ago = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

  const exception = (type: string, session: string, minutes: number) => ({
    event: '$exception',
    distinct_id: `user-${session}`,
    timestamp: ago(minutes),
    properties: {
      $session_id: session,
      $lib: 'web',
      $exception_list: [
        {
          type,
          value: `${type} happened`,
          stacktrace: {
            type: 'raw',
            frames: [{ platform: 'node:javascript', function: type, filename: '/srv/app.js', in_app: true }],
          },
        },
      ],
    },
  });
  const event = (name: string, session: string, minutes: number) => ({
    event: name,
    distinct_id: `user-${session}`,
    timestamp: ago(minutes),
    properties: { $session_id: session },
  });

  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const batch = [
      // CheckoutError before the purchase in two sessions, alone in one, neither in two.
      exception('CheckoutError', 'both-1', 50),
      event('purchase', 'both-1', 40),
      exception('CheckoutError', 'both-2', 30),
      event('purchase', 'both-2', 20),
      event('purchase', 'both-2', 10),
      exception('CheckoutError', 'exc-only', 30),
      event('purchase', 'success-1', 30),
      event('purchase', 'success-2', 30),
      event('purchase', 'success-3', 30),
      event('$pageview', 'neither-1', 30),
      event('$pageview', 'neither-2', 30),
      // The exception after the purchase: the session counts in no cell.
      event('purchase', 'after', 30),
      exception('CheckoutError', 'after', 20),
      // Another issue seen with every purchase: success_only is 0, so it has no ratio.
      exception('RareError', 'both-1', 45),
      // Outside the 6 hours: not counted.
      exception('CheckoutError', 'old', 7 * 60),
      event('purchase', 'old', 7 * 60 - 1),
      // No session: not counted.
      {
        ...exception('CheckoutError', 'x', 5),
        properties: { ...exception('CheckoutError', 'x', 5).properties, $session_id: '' },
      },
    ];
    const res = await fetch(`${base}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: h.boot.project_api_key, batch }),
    });
    expect(res.status).toBe(200);
  });
  afterAll(async () => h?.close());

  const post = async (query: Record<string, unknown>) =>
    h.request('POST', `/api/environments/${h.boot.project_id}/query/`, { body: { query } });

  async function hogql(sql: string): Promise<unknown[][]> {
    const res = await post({ kind: 'HogQLQuery', query: sql });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().results;
  }

  it('answers the odds ratio and population per issue and event, as the hand-written HogQL', async () => {
    const res = await post({ kind: 'ErrorTrackingIssueCorrelationQuery', events: ['purchase', '$pageview'] });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.columns).toEqual([
      'id',
      'status',
      'name',
      'description',
      'first_seen',
      'assignee',
      'external_issues',
      'last_seen',
      'library',
      'odds_ratio',
      'population',
      'event',
    ]);
    expect(body).toMatchObject({ hasMore: false, limit: 50, offset: 0 });
    const checkout = body.results.find(
      (r: { name: string; event: string }) => r.name === 'CheckoutError' && r.event === 'purchase',
    );
    // both 2 (both-1, both-2), success_only 3, exception_only 1, neither: $pageview-only sessions
    // and RareError's none (both-1 is "both"): neither-1, neither-2.
    expect(checkout.population).toEqual({ both: 2, success_only: 3, exception_only: 1, neither: 2 });
    expect(checkout.odds_ratio).toBeCloseTo((2 * 2) / (3 * 1), 9);
    expect(checkout).toMatchObject({ status: 'active', library: 'web', external_issues: [], assignee: null });
    expect(Date.parse(checkout.last_seen)).toBeGreaterThan(Date.now() - 25 * 60_000);
    expect(
      body.results.some(
        (r: { name: string; event: string }) => r.name === 'RareError' && r.event === 'purchase',
      ),
    ).toBe(false);

    // PostHog's query, by hand, with the issue ids capture stored on each exception.
    const ids = (
      await hogql(
        "SELECT DISTINCT toString(properties.$exception_issue_id) AS id FROM events WHERE event = '$exception' AND timestamp > now() - INTERVAL 6 HOUR AND notEmpty($session_id) ORDER BY id",
      )
    ).map((r) => String(r[0]));
    const list = `[${ids.map((i) => `'${i}'`).join(', ')}]`;
    const oracle = await hogql(`
      SELECT event, sumForEach(both), sumForEach(success_only), sumForEach(exception_only), sumForEach(neither)
      FROM (
        SELECT event,
          arrayMap(x -> if(x IS NOT NULL AND s IS NOT NULL AND x < s, 1, 0), ex) AS both,
          arrayMap(x -> if(x IS NULL AND s IS NOT NULL, 1, 0), ex) AS success_only,
          arrayMap(x -> if(x IS NOT NULL AND s IS NULL, 1, 0), ex) AS exception_only,
          arrayMap(x -> if(x IS NULL AND s IS NULL, 1, 0), ex) AS neither
        FROM (
          SELECT $session_id AS sid, ['purchase', '$pageview'] AS names,
            minForEach(arrayMap(x -> if(event = x, toNullable(timestamp), NULL), ['purchase', '$pageview'])) AS firsts,
            minForEach(arrayMap(x -> if(x = toString(properties.$exception_issue_id), toNullable(timestamp), NULL), ${list})) AS ex
          FROM events
          WHERE timestamp > now() - INTERVAL 6 HOUR AND notEmpty($session_id)
          GROUP BY sid
        )
        ARRAY JOIN names AS event, firsts AS s
      )
      GROUP BY event`);
    const expected: { id: string; event: string; odds: number; population: Record<string, number> }[] = [];
    for (const [name, b, s, e, n] of oracle) {
      ids.forEach((id, i) => {
        const cell = [b, s, e, n].map((v) => Number((v as unknown[])[i]));
        if (!cell.every((x) => x > 0)) return;
        const [both, success_only, exception_only, neither] = cell as [number, number, number, number];
        expected.push({
          id,
          event: String(name),
          odds: (both * neither) / (success_only * exception_only),
          population: { both, success_only, exception_only, neither },
        });
      });
    }
    expect(expected.length).toBeGreaterThan(0);
    const got = body.results.map(
      (r: { id: string; event: string; odds_ratio: number; population: Record<string, number> }) => ({
        id: r.id,
        event: r.event,
        odds: r.odds_ratio,
        population: r.population,
      }),
    );
    const key = (r: { id: string; event: string }) => `${r.id} ${r.event}`;
    expect([...got].sort((a, b) => key(a).localeCompare(key(b)))).toEqual(
      [...expected].sort((a, b) => key(a).localeCompare(key(b))),
    );
    // Highest odds first.
    const odds = got.map((r: { odds: number }) => r.odds);
    expect(odds).toEqual([...odds].sort((a, b) => b - a));
  });

  it('answers only active issues, and follows a merge', async () => {
    const first = (await post({ kind: 'ErrorTrackingIssueCorrelationQuery', events: ['purchase'] })).json();
    const checkout = first.results.find((r: { name: string }) => r.name === 'CheckoutError');
    const issues = `/api/environments/${h.boot.project_id}/error_tracking/issues/`;
    await h.request('PATCH', `${issues}${checkout.id}/`, { body: { status: 'resolved' } });
    const resolved = (
      await post({ kind: 'ErrorTrackingIssueCorrelationQuery', events: ['purchase'] })
    ).json();
    expect(resolved.results.map((r: { id: string }) => r.id)).not.toContain(checkout.id);
    await h.request('PATCH', `${issues}${checkout.id}/`, { body: { status: 'active' } });
    // RareError merged into CheckoutError: both-1's earliest exception is now RareError's (45 min).
    const rare = (await h.request('GET', `${issues}?search=RareError`)).json().results[0];
    const merged = await h.request('POST', `${issues}${checkout.id}/merge/`, { body: { ids: [rare.id] } });
    expect(merged.statusCode, merged.body).toBeLessThan(300);
    const after = (await post({ kind: 'ErrorTrackingIssueCorrelationQuery', events: ['purchase'] })).json();
    const row = after.results.find((r: { id: string }) => r.id === checkout.id);
    expect(row.population).toEqual({ both: 2, success_only: 3, exception_only: 1, neither: 2 });
    expect(after.results.map((r: { id: string }) => r.id)).not.toContain(rare.id);
  });

  it('refuses a node without events, or with events that are not strings', async () => {
    for (const bad of [{}, { events: 'purchase' }, { events: [1] }, { events: ['x'.repeat(500)] }]) {
      const res = await post({ kind: 'ErrorTrackingIssueCorrelationQuery', ...bad });
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json().type).toBe('validation_error');
    }
  });
});
