import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionToExpr } from '../../src/domain/actions/predicate.js';
import { compileSelect } from '../../src/hogql/compile.js';
import { loadParser } from '../../src/hogql/parse.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, ok, query, type RawEvent, uuid } from '../helpers/query-lists.js';

/**
 * Actions in insights through POST /query on real stores (UTC project, June 2025).
 * "Checkout intent" = pageview with url containing "/checkout" OR an autocapture whose element
 * text is exactly "Buy now":
 *   u1 06-02 10:00 pageview /checkout?step=1      ✓  10:05 pageview /home ✗  10:30 purchase
 *   u2 06-02 11:00 autocapture button "Buy now"   ✓  06-03 09:00 autocapture "Buy later" ✗
 *   u3 06-03 12:00 pageview /CHECKOUT             ✗ (contains is case-sensitive for URLs)
 *   u3 06-04 08:00 pageview /checkout             ✓  09:10 cancel  09:30 purchase
 *   u4 06-04 09:00 signup on /checkout            ✗ (not a pageview)
 *   u1 06-05 10:00 autocapture link "Buy now"     ✓
 *   u4 06-06 10:00 pageleave /checkout            ✗
 * So per day 06-01..06-07: [0, 2, 0, 1, 1, 0, 0] (4), persons u1 u2 on 06-02.
 */
const NOW = new Date('2025-07-01T12:00:00.000Z');
const WEEK = { date_from: '2025-06-01', date_to: '2025-06-07' };
let h: Harness;
let project: number;
const ids: Record<string, number> = {};

const BUTTON = 'button.btn.primary:nth-child="1"text="Buy now";div.card:attr_id="c1";body';
const LATER = 'button.btn:text="Buy later";div.card:attr_id="c2";body';
const LINK = 'a:href="/buy?x=\\"1\\""text="Buy now";nav;body';

const ev = (event: string, who: string, at: string, properties: Record<string, unknown> = {}): RawEvent => ({
  event,
  distinct_id: who,
  timestamp: `2025-${at}:00Z`,
  uuid: uuid(),
  properties: { $set: { name: who }, ...properties },
});

async function createAction(body: Record<string, unknown>, projectId = project, key = h.key) {
  const res = await h.request('POST', `/api/projects/${projectId}/actions/`, { body, key });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as number;
}

beforeAll(async () => {
  h = await startHarness({}, { now: () => NOW });
  project = h.boot.project_id;
  await loadParser();
  await capture(h, h.boot.project_api_key, project, [
    ev('$pageview', 'u1', '06-02T10:00', { $current_url: 'https://shop.test/checkout?step=1' }),
    ev('$pageview', 'u1', '06-02T10:05', { $current_url: 'https://shop.test/home' }),
    ev('purchase', 'u1', '06-02T10:30'),
    ev('$autocapture', 'u2', '06-02T11:00', { $elements_chain: BUTTON }),
    ev('$autocapture', 'u2', '06-03T09:00', { $elements_chain: LATER }),
    ev('$pageview', 'u3', '06-03T12:00', { $current_url: 'https://shop.test/CHECKOUT' }),
    ev('$pageview', 'u3', '06-04T08:00', { $current_url: 'https://shop.test/checkout' }),
    ev('cancel', 'u3', '06-04T09:10'),
    ev('purchase', 'u3', '06-04T09:30'),
    ev('signup', 'u4', '06-04T09:00', { $current_url: 'https://shop.test/checkout' }),
    ev('$autocapture', 'u1', '06-05T10:00', { $elements_chain: LINK }),
    ev('$pageleave', 'u4', '06-06T10:00', { $current_url: 'https://shop.test/checkout' }),
  ]);
  ids.checkout = await createAction({
    name: 'Checkout intent',
    steps: [
      { event: '$pageview', url: '/checkout', url_matching: 'contains' },
      { event: '$autocapture', text: 'Buy now', text_matching: 'exact' },
    ],
  });
  ids.cancel = await createAction({ name: 'Cancelled', steps: [{ event: 'cancel' }] });
}, 60_000);
afterAll(async () => h?.close());

const action = (name: string, extra: Record<string, unknown> = {}) => ({
  kind: 'ActionsNode',
  id: ids[name],
  ...extra,
});
const run = async (node: Record<string, unknown>) =>
  (await ok(h, project, node)).results as unknown as Array<Record<string, unknown>>;
const trendsData = async (steps: unknown[], extra: Record<string, unknown> = {}) => {
  const id = await createAction({ name: `adhoc ${uuid()}`, steps });
  const results = await run({
    kind: 'TrendsQuery',
    dateRange: WEEK,
    series: [{ kind: 'ActionsNode', id }],
    ...extra,
  });
  return (results[0] as { data: number[] }).data;
};

describe('TrendsQuery with an ActionsNode series', () => {
  it('counts events matching any step, labelled and described as the action', async () => {
    const results = await run({
      kind: 'TrendsQuery',
      dateRange: WEEK,
      series: [action('checkout', { name: 'stale name' }), { kind: 'EventsNode', event: '$pageview' }],
    });
    // The label is the stored name (a client's copy in `name` may be stale).
    expect(results[0]).toMatchObject({
      data: [0, 2, 0, 1, 1, 0, 0],
      count: 4,
      label: 'Checkout intent',
      order: 0,
      action: { id: ids.checkout, type: 'actions', order: 0, name: 'Checkout intent', math: 'total' },
    });
    // The events series beside it is unchanged: pageviews u1 ×2, u3 ×2.
    expect(results[1]).toMatchObject({
      data: [0, 2, 1, 1, 0, 0, 0],
      label: '$pageview',
      action: { type: 'events' },
    });
  });

  it('counts persons with dau and narrows with series properties', async () => {
    const dau = await run({
      kind: 'TrendsQuery',
      dateRange: WEEK,
      series: [action('checkout', { math: 'dau' })],
    });
    expect(dau[0]?.data).toEqual([0, 2, 0, 1, 1, 0, 0]);
    const named = await run({
      kind: 'TrendsQuery',
      dateRange: WEEK,
      series: [
        action('checkout', {
          properties: [{ key: 'name', value: 'u1', type: 'person', operator: 'exact' }],
          custom_name: 'Mine',
        }),
      ],
    });
    expect(named[0]).toMatchObject({ data: [0, 1, 0, 0, 1, 0, 0], count: 2, label: 'Checkout intent' });
  });

  it('matches elements: text, href, tag name and CSS selectors', async () => {
    expect(await trendsData([{ text: 'buy', text_matching: 'contains' }])).toEqual([0, 1, 1, 0, 1, 0, 0]);
    expect(await trendsData([{ text: '^Buy (now|later)$', text_matching: 'regex' }])).toEqual([
      0, 1, 1, 0, 1, 0, 0,
    ]);
    expect(await trendsData([{ href: '/buy?x="1"' }])).toEqual([0, 0, 0, 0, 1, 0, 0]);
    expect(await trendsData([{ href: 'BUY', href_matching: 'contains' }])).toEqual([0, 0, 0, 0, 1, 0, 0]);
    expect(await trendsData([{ tag_name: 'nav' }])).toEqual([0, 0, 0, 0, 1, 0, 0]);
    expect(await trendsData([{ tag_name: 'butto' }])).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect(await trendsData([{ selector: 'button.primary' }])).toEqual([0, 1, 0, 0, 0, 0, 0]);
    expect(await trendsData([{ selector: 'div#c1 > button' }])).toEqual([0, 1, 0, 0, 0, 0, 0]);
    expect(await trendsData([{ selector: 'body > button' }])).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect(await trendsData([{ selector: 'body button.btn' }])).toEqual([0, 1, 1, 0, 0, 0, 0]);
    expect(await trendsData([{ selector: 'button:nth-child(1)' }])).toEqual([0, 1, 0, 0, 0, 0, 0]);
    expect(await trendsData([{ selector: '[href]' }])).toEqual([0, 0, 0, 0, 1, 0, 0]);
    expect(await trendsData([{ selector: 'div > nav' }])).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it('matches URLs exactly, by regex and with LIKE wildcards taken literally', async () => {
    // No event in the step: any event on the URL (u3's pageview and u4's signup on 06-04, u4's pageleave).
    expect(await trendsData([{ url: 'https://shop.test/checkout', url_matching: 'exact' }])).toEqual([
      0, 0, 0, 2, 0, 1, 0,
    ]);
    expect(await trendsData([{ url: '/checkout$', url_matching: 'regex' }])).toEqual([0, 0, 0, 2, 0, 1, 0]);
    expect(await trendsData([{ url: '/checkout', url_matching: 'regex', event: '$pageview' }])).toEqual([
      0, 1, 0, 1, 0, 0, 0,
    ]);
    expect(await trendsData([{ url: 'check%' }])).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect(await trendsData([{ event: '$pageview', url: '/CHECKOUT' }])).toEqual([0, 0, 1, 0, 0, 0, 0]);
    // An action without steps matches nothing.
    expect(await trendsData([])).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });

  it('lists the persons behind a point (InsightActorsQuery)', async () => {
    const res = await query(h, project, {
      kind: 'ActorsQuery',
      select: ['properties.name', 'event_count'],
      orderBy: ['properties.name ASC'],
      source: {
        kind: 'InsightActorsQuery',
        day: '2025-06-02',
        source: { kind: 'TrendsQuery', dateRange: WEEK, series: [action('checkout')] },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().results).toEqual([
      ['u1', 1],
      ['u2', 1],
    ]);
  });

  it('sees an edited action at once (the definition is part of the cache key)', async () => {
    const id = await createAction({ name: 'editable', steps: [{ event: 'purchase' }] });
    const node = { kind: 'TrendsQuery', dateRange: WEEK, series: [{ kind: 'ActionsNode', id }] };
    const first = await h.request('POST', `/api/environments/${project}/query/`, { body: { query: node } });
    expect(first.json().results[0].count).toBe(2);
    await h.request('PATCH', `/api/projects/${project}/actions/${id}/`, {
      body: { steps: [{ event: 'cancel' }] },
    });
    const second = await h.request('POST', `/api/environments/${project}/query/`, { body: { query: node } });
    expect(second.json().results[0].count).toBe(1);
  });
});

describe('element property filters', () => {
  const data = async (filter: Record<string, unknown>, event: string | null = null) => {
    const results = await run({
      kind: 'TrendsQuery',
      dateRange: WEEK,
      series: [{ kind: 'EventsNode', event, properties: [{ type: 'element', ...filter }] }],
    });
    return (results[0] as { data: number[] }).data;
  };

  it('filter events by text, href, selector and tag name', async () => {
    expect(await data({ key: 'text', value: 'Buy now' })).toEqual([0, 1, 0, 0, 1, 0, 0]);
    expect(await data({ key: 'text', value: 'BUY', operator: 'icontains' })).toEqual([0, 1, 1, 0, 1, 0, 0]);
    expect(await data({ key: 'text', value: 'Buy now', operator: 'is_not' }, '$autocapture')).toEqual([
      0, 0, 1, 0, 0, 0, 0,
    ]);
    expect(await data({ key: 'text', value: ['Buy now', 'Buy later'], operator: 'exact' })).toEqual([
      0, 1, 1, 0, 1, 0, 0,
    ]);
    expect(await data({ key: 'href', value: '^/buy', operator: 'regex' })).toEqual([0, 0, 0, 0, 1, 0, 0]);
    expect(await data({ key: 'href', operator: 'is_set' }, '$autocapture')).toEqual([0, 0, 0, 0, 1, 0, 0]);
    expect(await data({ key: 'href', operator: 'is_not_set' }, '$autocapture')).toEqual([
      0, 1, 1, 0, 0, 0, 0,
    ]);
    expect(await data({ key: 'selector', value: 'div#c1 > button' })).toEqual([0, 1, 0, 0, 0, 0, 0]);
    expect(await data({ key: 'selector', value: 'nav', operator: 'is_not' }, '$autocapture')).toEqual([
      0, 1, 1, 0, 0, 0, 0,
    ]);
    expect(await data({ key: 'tag_name', value: ['nav', 'div'] })).toEqual([0, 1, 1, 0, 1, 0, 0]);
  });

  it('answers 400 for keys and operators they do not support', async () => {
    for (const filter of [
      { key: 'tag_name', value: 'a', operator: 'icontains' },
      { key: 'attr_class', value: 'btn' },
      { key: 'selector', value: 'a ~ b' },
    ]) {
      const res = await query(h, project, {
        kind: 'TrendsQuery',
        dateRange: WEEK,
        series: [{ kind: 'EventsNode', event: null, properties: [{ type: 'element', ...filter }] }],
      });
      expect(res.statusCode, JSON.stringify(filter)).toBe(400);
      expect(res.json().type).toBe('validation_error');
    }
  });
});

describe('other insights with actions', () => {
  it('StickinessQuery and LifecycleQuery take an ActionsNode', async () => {
    const sticky = await run({ kind: 'StickinessQuery', dateRange: WEEK, series: [action('checkout')] });
    // u2 and u3 on one day each, u1 on two.
    expect(sticky[0]).toMatchObject({ data: [2, 1, 0, 0, 0, 0, 0], count: 3, label: 'Checkout intent' });
    const life = await run({ kind: 'LifecycleQuery', dateRange: WEEK, series: [action('checkout')] });
    const byStatus = Object.fromEntries(life.map((r) => [r.status, r.data]));
    // "new" is the person's first event of all (PostHog: person created_at), not the first action:
    // 06-02 u1 u2 new; 06-03 both dormant; 06-04 u3 resurrecting (created 06-03 by a pageview that
    // is no checkout); 06-05 u3 dormant, u1 resurrecting; 06-06 u1 dormant.
    expect(byStatus).toEqual({
      new: [0, 2, 0, 0, 0, 0, 0],
      returning: [0, 0, 0, 0, 0, 0, 0],
      resurrecting: [0, 0, 0, 1, 1, 0, 0],
      dormant: [0, 0, -2, 0, -1, -1, 0],
    });
    expect(life[0]?.label).toBe('Checkout intent - new');
  });

  it('FunnelsQuery with an action step and an action exclusion', async () => {
    const series = [action('checkout'), { kind: 'EventsNode', event: 'purchase' }];
    const steps = await run({ kind: 'FunnelsQuery', dateRange: WEEK, series });
    expect(steps.map((s) => [s.name, s.count, s.type, s.action_id])).toEqual([
      ['Checkout intent', 3, 'actions', ids.checkout],
      ['purchase', 2, 'events', 'purchase'],
    ]);
    // u1: 30 minutes; u3: 90 minutes.
    expect(steps[1]?.average_conversion_time).toBe(3600);
    const excluded = await run({
      kind: 'FunnelsQuery',
      dateRange: WEEK,
      series,
      funnelsFilter: { exclusions: [action('cancel', { funnelFromStep: 0, funnelToStep: 1 })] },
    });
    // u3 cancelled between the steps and had no other attempt.
    expect(excluded.map((s) => s.count)).toEqual([2, 1]);
    const people = await query(h, project, {
      kind: 'ActorsQuery',
      select: ['properties.name'],
      orderBy: ['properties.name ASC'],
      source: {
        kind: 'FunnelsActorsQuery',
        funnelStep: -2,
        source: { kind: 'FunnelsQuery', dateRange: WEEK, series },
      },
    });
    expect(people.statusCode, people.body).toBe(200);
    // Reached the action and dropped off before purchasing.
    expect(people.json().results).toEqual([['u2']]);
  });

  it('RetentionQuery with an action as target and returning entity', async () => {
    const entity = { id: ids.checkout, type: 'actions', name: 'Checkout intent' };
    const cohorts = await run({
      kind: 'RetentionQuery',
      dateRange: { date_to: '2025-06-07' },
      retentionFilter: { totalIntervals: 7, targetEntity: entity, returningEntity: entity },
    });
    expect(cohorts.map((c) => (c.values as Array<{ count: number }>).map((x) => x.count))).toEqual([
      [0, 0, 0, 0, 0, 0, 0],
      [2, 0, 0, 1, 0, 0],
      [0, 0, 0, 0, 0],
      [1, 0, 0, 0],
      [1, 0, 0],
      [0, 0],
      [0],
    ]);
    // Target the action, return with any pageview: of 06-02's u1 and u2, nobody viewed a page later
    // except... u3 is not in that cohort, so only 06-04's u3 (no later pageview) counts: zeros.
    const toPageview = await run({
      kind: 'RetentionQuery',
      dateRange: { date_to: '2025-06-07' },
      retentionFilter: {
        totalIntervals: 7,
        targetEntity: entity,
        returningEntity: { id: '$pageview', type: 'events' },
      },
    });
    expect(toPageview[1]?.values).toEqual([
      { count: 2, label: 'Day 0' },
      { count: 0 },
      { count: 0 },
      { count: 0 },
      { count: 0 },
      { count: 0 },
    ]);
  });

  it('EventsQuery filters by actionId', async () => {
    const out = await ok(h, project, {
      kind: 'EventsQuery',
      select: ['distinct_id', 'event'],
      actionId: ids.checkout,
      after: 'all',
      orderBy: ['timestamp ASC'],
    });
    expect(out.results).toEqual([
      ['u1', '$pageview'],
      ['u2', '$autocapture'],
      ['u3', '$pageview'],
      ['u1', '$autocapture'],
    ]);
  });
});

describe('action references that do not resolve', () => {
  it('answers 400 for an unknown id and for another project’s action', async () => {
    const unknown = await query(h, project, {
      kind: 'TrendsQuery',
      series: [{ kind: 'ActionsNode', id: 987654 }],
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'Action 987654 does not exist in this project.',
      attr: 'query__series__0',
    });
    const other = await h.owner('Other org');
    const theirs = await createAction(
      { name: 'theirs', steps: [{ event: 'purchase' }] },
      other.projectId,
      other.key,
    );
    const cross = await query(h, project, {
      kind: 'FunnelsQuery',
      series: [action('checkout'), { kind: 'ActionsNode', id: theirs }],
    });
    expect(cross.statusCode).toBe(400);
    expect(cross.json().detail).toBe(`Action ${theirs} does not exist in this project.`);
    const retention = await query(h, project, {
      kind: 'RetentionQuery',
      retentionFilter: { targetEntity: { id: theirs, type: 'actions' } },
    });
    expect(retention.json()).toMatchObject({
      attr: 'query__retentionFilter__targetEntity',
      code: 'invalid_input',
    });
    const events = await query(h, project, { kind: 'EventsQuery', select: ['event'], actionId: 'x' });
    expect(events.json()).toMatchObject({ type: 'validation_error', attr: 'query__actionId' });
    expect(events.statusCode).toBe(400);
  });

  it('cannot smuggle a definition in: embedded definitions from the request are replaced', async () => {
    // A step with no conditions would match all 12 events; the stored "Cancelled" matches one.
    const res = await query(h, project, {
      kind: 'TrendsQuery',
      dateRange: WEEK,
      series: [action('cancel', { _burrow_action: { id: ids.cancel, name: 'x', steps: [{}] } })],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().results[0]).toMatchObject({ count: 1, label: 'Cancelled' });
  });
});

describe('printed SQL of an action', () => {
  it('carries the team guard and quotes user values as constants', () => {
    const where = actionToExpr([
      { event: "it's", url: "x' OR 1=1 --", url_matching: 'contains' },
      { text: "Buy'now", text_matching: 'exact', selector: 'div#a > button' },
    ]);
    const { sql, params } = compileSelect(
      {
        node: 'SelectQuery',
        select: [{ node: 'Call', name: 'count', args: [] }],
        select_from: { node: 'JoinExpr', table: { node: 'Field', chain: ['events'] } },
        where,
      },
      { teamId: 7, timezone: 'UTC', weekStartDay: 0, table: (t) => `db.${t}` },
    );
    const reads = [...sql.matchAll(/db\.(\w+) AS (\w+)/g)];
    expect(reads.map((r) => r[1])).toEqual(['events']);
    expect(sql).toContain(`equals(${reads[0]?.[2]}.team_id, 7)`);
    // User values travel as query parameters, never as SQL text.
    expect(Object.values(params)).toEqual(expect.arrayContaining(["it's", "%x' OR 1=1 --%", "Buy'now"]));
    expect(sql).not.toContain("'s");
    expect(sql).not.toContain('OR 1=1');
  });
});
