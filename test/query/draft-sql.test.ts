import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSelect } from '../../src/hogql/compile.js';
import { loadParser } from '../../src/hogql/parse.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

// draft_sql end to end: events arrive through capture, drafts come back over HTTP and are run on
// the engine, so every template is checked against the project's real names and real rows.
let h: Harness;
const DAY = 86_400_000;
const now = Date.now();
const at = (daysAgo: number, minutes = 0) => new Date(now - daysAgo * DAY + minutes * 60_000).toISOString();
const yesterdayNoon = () => {
  const d = new Date(now - DAY);
  d.setUTCHours(12, 0, 0, 0);
  return d.toISOString();
};

const draftUrl = (params: Record<string, string>, prefix = 'environments', project?: number) =>
  `/api/${prefix}/${project ?? h.boot.project_id}/query/draft_sql/?${new URLSearchParams(params)}`;
const draft = (params: Record<string, string>, key?: string) =>
  h.request('GET', draftUrl(params), key ? { key } : {});

async function sqlFor(prompt: string, current?: string): Promise<string> {
  const res = await draft({ prompt, ...(current ? { current_query: current } : {}) });
  expect(res.statusCode, res.body).toBe(200);
  expect(Object.keys(res.json())).toEqual(['sql']);
  return res.json().sql as string;
}

/** Compiles a draft for the project and runs it on the engine, as /query would. */
async function run(sql: string): Promise<unknown[][]> {
  const compiled = compileSelect(sql, {
    teamId: h.boot.project_id,
    timezone: 'UTC',
    weekStartDay: 0,
    table: (t) => h.stores.events.table(t),
  });
  return (await h.stores.events.queryRows(compiled.sql, { params: compiled.params })).rows;
}

async function capture(apiKey: string, batch: object[]) {
  const res = await h.request('POST', '/batch/', { key: null, body: { api_key: apiKey, batch } });
  expect(res.statusCode).toBe(200);
}

const pageview = (
  user: string,
  daysAgo: number,
  browser: string,
  path: string,
  session: string,
  minutes = 0,
) => ({
  event: '$pageview',
  distinct_id: user,
  timestamp: at(daysAgo, minutes),
  properties: {
    $browser: browser,
    $pathname: path,
    $current_url: `https://shop.test${path}`,
    $session_id: session,
  },
});

beforeAll(async () => {
  await loadParser();
  h = await startHarness({ DRAFT_SQL_BURST_PER_MINUTE: '1000', DRAFT_SQL_PER_DAY: '100000' });
  await capture(h.boot.project_api_key, [
    pageview('u1', 2, 'Chrome', '/pricing', 's1'),
    pageview('u1', 2, 'Chrome', '/home', 's1', 1),
    pageview('u2', 3, 'Firefox', '/pricing', 's2'),
    pageview('u2', 3, 'Firefox', '/home', 's2', 2),
    pageview('u3', 20, 'Chrome', '/pricing', 's3'),
    { event: 'user signed up', distinct_id: 'u1', timestamp: yesterdayNoon(), properties: { plan: 'pro' } },
    { event: 'user signed up', distinct_id: 'u2', timestamp: yesterdayNoon(), properties: { plan: 'free' } },
    { event: 'checkout started', distinct_id: 'u1', timestamp: at(1), properties: { $browser: 'Chrome' } },
    { event: 'checkout started', distinct_id: 'u2', timestamp: at(1), properties: { $browser: 'Firefox' } },
    { event: 'purchase completed', distinct_id: 'u1', timestamp: at(1, 5), properties: { amount: 30 } },
  ]);
  const other = await h.owner('other');
  const token = (await h.request('GET', `/api/projects/${other.projectId}/`, { key: other.key })).json()
    .api_token;
  await capture(token, [
    { event: 'secret_other_team_event', distinct_id: 'x', properties: { secret_key: 1 } },
  ]);
}, 60_000);
afterAll(() => h?.close());

describe(`GET /query/draft_sql/ templates (${backend})`, () => {
  it('drafts daily pageviews over the last two weeks', async () => {
    const sql = await sqlFor('daily pageviews last 2 weeks');
    expect(sql).toContain("event = '$pageview'");
    expect(sql).toContain('INTERVAL 2 WEEK');
    const rows = await run(sql);
    expect(rows.map((r) => r[1])).toEqual([2, 2]);
  });

  it('drafts the top events by unique users', async () => {
    const sql = await sqlFor('top 10 events by users');
    expect(sql).toMatch(/LIMIT 10$/);
    expect(await run(sql)).toEqual([
      ['$pageview', 3],
      ['checkout started', 2],
      ['user signed up', 2],
      ['purchase completed', 1],
    ]);
  });

  it('drafts weekly active users', async () => {
    const sql = await sqlFor('weekly active users');
    expect(sql).toContain('toStartOfWeek(timestamp) AS week');
    expect(sql).toContain('count(DISTINCT person_id) AS active_users');
    const rows = await run(sql);
    expect(rows.reduce((n, r) => n + Number(r[1]), 0)).toBeGreaterThanOrEqual(3);
  });

  it('breaks events down by a real property key', async () => {
    const sql = await sqlFor('events by browser');
    expect(sql).toContain('properties.$browser AS browser');
    expect(await run(sql)).toEqual(
      expect.arrayContaining([
        ['Chrome', 4],
        ['Firefox', 3],
      ]),
    );
  });

  it('fuzzy-matches "signups" to the project event and counts yesterday', async () => {
    const sql = await sqlFor('count of signups yesterday');
    expect(sql).toContain("event = 'user signed up'");
    expect(sql).toContain('toDate(timestamp) = yesterday()');
    expect(await run(sql)).toEqual([[2]]);
  });

  it('averages session duration from the sessions table', async () => {
    const sql = await sqlFor('average session duration');
    expect(sql).toContain('FROM sessions');
    // s1 lasted 60 s, s2 120 s; s3 (one event, 20 days ago) 0 s.
    expect(await run(sql)).toEqual([[60]]);
  });

  it('lists the top pages by their real path property', async () => {
    const sql = await sqlFor('top pages');
    expect(sql).toContain('properties.$pathname AS page');
    expect(await run(sql)).toEqual([
      ['/pricing', 3],
      ['/home', 2],
    ]);
  });

  it('lists users who did an event, and who did one but not another', async () => {
    const did = await run(await sqlFor('users who did checkout started'));
    expect(did.map((r) => r[1]).sort()).toEqual(['u1', 'u2']);
    const sql = await sqlFor('users who started checkout but did not complete a purchase');
    expect(sql).toContain("countIf(event = 'purchase completed') = 0");
    expect((await run(sql)).map((r) => r[1])).toEqual(['u2']);
  });

  it('reads filters, numbers and windows', async () => {
    const chrome = await sqlFor('pageviews on chrome in the last 30 days');
    expect(chrome).toContain("properties.$browser = 'Chrome'");
    expect(await run(chrome)).toEqual([[3]]);
    const pro = await sqlFor('signups where plan is pro');
    expect(await run(pro)).toEqual([[1]]);
    const big = await sqlFor('purchases where amount > 20 this month');
    expect(big).toContain('toFloat(properties.amount) > 20');
    const five = await sqlFor('latest 3 events');
    expect(five).toMatch(/ORDER BY timestamp DESC\nLIMIT 3$/);
    expect(await run(five)).toHaveLength(3);
  });

  it('keeps quoted names literal and escaped', async () => {
    const sql = await sqlFor(`count of "x' OR 1=1 --" events`);
    expect(sql).toContain("event = 'x\\' OR 1=1 --'");
    expect(await run(sql)).toEqual([[0]]);
  });

  it('adds to the current query when the prompt says add, filter or only', async () => {
    const current = 'SELECT event, count() AS c\nFROM events\nGROUP BY event\nORDER BY c DESC';
    const sql = await sqlFor('only chrome', current);
    expect(sql).toBe(
      "SELECT event, count() AS c\nFROM events\nWHERE properties.$browser = 'Chrome'\nGROUP BY event\nORDER BY c DESC",
    );
    expect(await run(sql)).toEqual([
      ['$pageview', 3],
      ['checkout started', 1],
    ]);
    const kept = await sqlFor(
      'add a filter where plan = free',
      "SELECT count() FROM events WHERE event = 'a' OR event = 'user signed up'",
    );
    expect(kept).toBe(
      "SELECT count() FROM events WHERE (event = 'a' OR event = 'user signed up') AND properties.plan = 'free'",
    );
    expect(await run(kept)).toEqual([[1]]);
    expect(await sqlFor('limit it to 5', 'SELECT event FROM events LIMIT 50')).toBe(
      'SELECT event FROM events LIMIT 5',
    );
  });

  it('drafts that POST /query runs as a HogQLQuery', async () => {
    const sql = await sqlFor('top 10 events by users');
    const res = await h.request('POST', `/api/environments/${h.boot.project_id}/query/`, {
      body: { query: { kind: 'HogQLQuery', query: sql } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().results[0]).toEqual(['$pageview', 3]);
  });

  it('answers on the /api/projects/ prefix too', async () => {
    const res = await h.request('GET', draftUrl({ prompt: 'top pages' }, 'projects'));
    expect(res.statusCode).toBe(200);
  });
});

describe(`GET /query/draft_sql/ errors (${backend})`, () => {
  it('requires a prompt', async () => {
    const variants: Array<Record<string, string>> = [{}, { prompt: '' }, { prompt: '   ' }];
    for (const params of variants) {
      const res = await draft(params);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        type: 'validation_error',
        code: 'required',
        detail: 'This field is required.',
        attr: 'prompt',
      });
    }
  });

  it('refuses prompts over 400 characters and huge current queries', async () => {
    expect((await draft({ prompt: 'a'.repeat(400) })).json().code).not.toBe('too_long');
    const res = await draft({ prompt: 'a'.repeat(401) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ type: 'validation_error', code: 'too_long', attr: 'prompt' });
    const big = await draft({ prompt: 'only chrome', current_query: `SELECT 1 ${' '.repeat(10_000)}` });
    expect(big.statusCode).toBe(400);
    expect(big.json()).toMatchObject({ code: 'max_length', attr: 'current_query' });
  });

  it('says unclear, with examples, when no template fits', async () => {
    const res = await draft({ prompt: 'what is the meaning of life' });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ type: 'validation_error', code: 'unclear', attr: 'prompt' });
    expect(body.detail).toContain('daily pageviews last 2 weeks');
  });

  it("names the project's own events, never another project's, when an event is unknown", async () => {
    const res = await draft({ prompt: 'daily secret other team events' });
    expect(res.statusCode).toBe(400);
    const { code, detail } = res.json();
    expect(code).toBe('unclear');
    expect(detail).toContain('$pageview');
    expect(detail).toContain('user signed up');
    expect(detail).not.toContain('secret_other_team_event');
    const prop = await draft({ prompt: 'events by secret key' });
    expect(prop.json().detail).toContain('No property like');
  });

  it('explains a current query that is not HogQL', async () => {
    const res = await draft({ prompt: 'only chrome', current_query: 'SELEC nonsense' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_input', attr: 'current_query' });
    const union = await draft({ prompt: 'only chrome', current_query: 'SELECT 1 UNION ALL SELECT 2' });
    expect(union.json()).toMatchObject({ code: 'unclear' });
  });

  it('needs query:read on a project the key can reach', async () => {
    expect((await h.request('GET', draftUrl({ prompt: 'top pages' }), { key: null })).statusCode).toBe(401);
    const narrow = await h.user({
      organizationId: h.boot.organization_id,
      key: { scopes: ['insight:read'] },
    });
    expect((await draft({ prompt: 'top pages' }, narrow.key)).statusCode).toBe(403);
    const reader = await h.user({ organizationId: h.boot.organization_id, key: { scopes: ['query:read'] } });
    expect((await draft({ prompt: 'top pages' }, reader.key)).statusCode).toBe(200);
    const other = await h.owner('third');
    expect(
      (await h.request('GET', draftUrl({ prompt: 'top pages' }, 'environments', other.projectId))).statusCode,
    ).toBe(403);
  });
});
