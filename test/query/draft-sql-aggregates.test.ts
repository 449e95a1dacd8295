import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSelect } from '../../src/hogql/compile.js';
import { loadParser } from '../../src/hogql/parse.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

// A draft does what the prompt asks (an average of a property, by another) or says what it could
// not do: never a silent count().
let h: Harness;
const at = (minutes: number) => new Date(Date.now() - 86_400_000 + minutes * 60_000).toISOString();

const draft = (prompt: string) =>
  h.request(
    'GET',
    `/api/environments/${h.boot.project_id}/query/draft_sql/?${new URLSearchParams({ prompt })}`,
  );

async function run(sql: string): Promise<unknown[][]> {
  const compiled = compileSelect(sql, {
    teamId: h.boot.project_id,
    timezone: 'UTC',
    weekStartDay: 0,
    table: (t) => h.stores.events.table(t),
  });
  return (await h.stores.events.queryRows(compiled.sql, { params: compiled.params })).rows;
}

beforeAll(async () => {
  await loadParser();
  h = await startHarness({ DRAFT_SQL_BURST_PER_MINUTE: '1000', DRAFT_SQL_PER_DAY: '100000' });
  const purchase = (user: string, amount: number, plan: string, minutes: number) => ({
    event: 'purchase',
    distinct_id: user,
    timestamp: at(minutes),
    properties: { amount, plan },
  });
  const res = await h.request('POST', '/batch/', {
    key: null,
    body: {
      api_key: h.boot.project_api_key,
      batch: [
        purchase('u1', 10, 'pro', 1),
        purchase('u2', 30, 'pro', 2),
        purchase('u3', 5, 'free', 3),
        purchase('u4', 7, 'free', 4),
        { event: '$pageview', distinct_id: 'u1', timestamp: at(5), properties: { $browser: 'Chrome' } },
      ],
    },
  });
  expect(res.statusCode).toBe(200);
}, 60_000);
afterAll(() => h?.close());

describe(`draft_sql aggregates (${backend})`, () => {
  it('"average amount of purchase by plan" averages the amount property, broken down by plan', async () => {
    const res = await draft('average amount of purchase by plan');
    expect(res.statusCode, res.body).toBe(200);
    const sql = res.json().sql as string;
    expect(sql).toContain('avg(toFloat(properties.amount))');
    expect(sql).toContain("event = 'purchase'");
    expect(sql).toContain('properties.plan AS plan');
    expect(sql).not.toContain('count()');
    const rows = await run(sql);
    expect(rows).toEqual(
      expect.arrayContaining([
        ['pro', 20],
        ['free', 6],
      ]),
    );
  });

  it.each([
    ['total amount of purchases', 'sum(toFloat(properties.amount))', 52],
    ['max amount of purchase', 'max(toFloat(properties.amount))', 30],
    ['median amount of purchase', 'median(toFloat(properties.amount))', 8.5],
    ['p50 amount of purchase', 'quantile(0.50)(toFloat(properties.amount)) AS p50_amount', 8.5],
    ['90th percentile of amount of purchase', 'quantile(0.90)(toFloat(properties.amount))', 24],
  ])('"%s" uses %s', async (prompt, expr, expected) => {
    const res = await draft(prompt);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().sql).toContain(expr);
    const rows = (await run(res.json().sql)) as number[][];
    expect(rows).toHaveLength(1);
    expect(rows[0]?.[0]).toBeCloseTo(expected, 6);
  });

  it('daily average amount of purchase is a series of averages', async () => {
    const res = await draft('daily average amount of purchase last 7 days');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().sql).toContain('avg(toFloat(properties.amount))');
  });

  it('says what it could not do instead of counting', async () => {
    const unknown = await draft('average price of purchase by plan');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ code: 'unclear', attr: 'prompt' });
    expect(unknown.json().detail).toContain('No property like "price"');
    expect(unknown.json().detail).toContain('amount');

    const stddev = await draft('standard deviation of amount of purchase');
    expect(stddev.statusCode).toBe(400);
    expect(stddev.json().detail).toMatch(/cannot draft "standard deviation"/i);

    const ratio = await draft('conversion rate from pageview to purchase');
    expect(ratio.statusCode).toBe(400);
    expect(ratio.json().detail).toMatch(/cannot draft .*conversion/i);
  });
});
