import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Catalog, EMPTY_CATALOG } from '../../src/domain/draft-sql/catalog.js';
import { render } from '../../src/domain/draft-sql/draft.js';
import { createLimiter } from '../../src/domain/draft-sql/limiter.js';
import { complete, endpointOf, extractSql, LlmError } from '../../src/domain/draft-sql/llm.js';
import { matchEvent, matchProperty } from '../../src/domain/draft-sql/match.js';
import { analyse } from '../../src/domain/draft-sql/prompt.js';
import { resolve } from '../../src/domain/draft-sql/resolve.js';
import { fromTemplates } from '../../src/domain/draft-sql/templates.js';
import { distance } from '../../src/domain/draft-sql/text.js';
import { compileSelect } from '../../src/hogql/compile.js';
import { loadParser } from '../../src/hogql/parse.js';

// The framework-free parts of draft_sql: prompt reading, name matching, templates, limiter, model client.
const catalog = (events: string[], props: Array<[string, 'event' | 'person']> = []): Catalog => ({
  events: events.map((name, i) => ({ name, count: 100 - i })),
  properties: props.map(([key, kind], i) => ({ key, kind, count: 100 - i })),
});

const RICH = catalog(
  [
    '$pageview',
    '$autocapture',
    'user signed up',
    'signup_page_viewed',
    'Purchase Completed',
    'checkout_started',
  ],
  [
    ['$browser', 'event'],
    ['$os', 'event'],
    ['$geoip_country_code', 'event'],
    ['$pathname', 'event'],
    ['plan', 'person'],
    ['odd key-with spaces', 'event'],
    ['groups', 'event'],
  ],
);

const draftOf = (prompt: string, c: Catalog = RICH) => {
  const a = analyse(prompt);
  const outcome = fromTemplates({ a, r: resolve(a, c), catalog: c });
  return 'draft' in outcome
    ? { sql: render(outcome.draft), template: outcome.template }
    : { problem: outcome.problem };
};

describe('reading a prompt', () => {
  it('finds time windows, buckets, limits and metrics, and leaves the event words', () => {
    expect(analyse('daily pageviews over the past two weeks')).toMatchObject({
      window: { kind: 'last', n: 2, unit: 'week' },
      granularity: 'day',
      runs: [['pageviews']],
    });
    expect(analyse('signups in the last quarter').window).toEqual({ kind: 'last', n: 3, unit: 'month' });
    expect(analyse('signups yesterday').window).toEqual({ kind: 'yesterday' });
    expect(analyse('signups today').window).toEqual({ kind: 'today' });
    expect(analyse('signups this month').window).toEqual({ kind: 'this', unit: 'month' });
    expect(analyse('signups since 2024-05-01').window).toEqual({ kind: 'since', date: '2024-05-01' });
    expect(analyse('all time signups').window).toEqual({ kind: 'all' });
    expect(analyse('top ten events by unique users')).toMatchObject({
      limit: 10,
      metric: 'users',
      breakdown: undefined,
    });
    expect(analyse('MAU')).toMatchObject({ granularity: 'month', active: true, metric: 'users' });
    expect(analyse('latest 25 purchases')).toMatchObject({ limit: 25, recent: true, runs: [['purchases']] });
    expect(analyse('pageviews by device type').breakdown).toBe('device type');
    expect(analyse('pageviews by browser for signups').breakdown).toBe('browser');
  });

  it('reads filters, value hints, quotes and negations', () => {
    expect(analyse('signups where plan is "Pro Max" and seats >= 3').filters).toEqual([
      { phrase: 'plan', op: '=', value: 'Pro Max' },
      { phrase: 'seats', op: '>=', value: '3' },
    ]);
    expect(analyse('pageviews not on Safari').filters).toEqual([
      { phrase: '$browser', op: '!=', value: 'Safari' },
    ]);
    expect(analyse('events where Plan = Enterprise').filters[0]?.value).toBe('Enterprise');
    expect(analyse(`users who did "it's done" but didn't "pay"`)).toMatchObject({
      runs: [["§it's done"]],
      negated: [['§pay']],
    });
  });
});

describe('matching names', () => {
  it('meets plurals, verb forms, word order and typos', () => {
    expect(matchEvent('signups', RICH)?.name).toBe('user signed up');
    expect(matchEvent('signups', catalog(['$signup', 'signup']))?.name).toBe('$signup');
    expect(matchEvent('signups', catalog(['signup', 'other']))?.name).toBe('signup');
    expect(matchEvent('purchases completed', RICH)?.name).toBe('Purchase Completed');
    expect(matchEvent('started checkout', RICH)?.name).toBe('checkout_started');
    expect(matchEvent('pagveiws', RICH)?.name).toBe('$pageview');
    expect(matchEvent('page views', EMPTY_CATALOG)).toEqual({ name: '$pageview', score: 40 });
    expect(matchEvent('clicks', RICH)).toEqual({ name: '$autocapture', score: 95 });
    expect(matchEvent('zebra', RICH)).toBeUndefined();
    expect(distance('pagveiw', 'pageview')).toBe(2);
  });

  it("prefers the project's own keys and knows PostHog's", () => {
    expect(matchProperty('browser', RICH)).toMatchObject({ key: '$browser', kind: 'event' });
    expect(matchProperty('country', RICH)).toMatchObject({ key: '$geoip_country_code' });
    expect(matchProperty('country', EMPTY_CATALOG)).toMatchObject({ key: '$geoip_country_name', score: 40 });
    expect(matchProperty('plan', RICH)).toMatchObject({ key: 'plan', kind: 'person' });
    expect(matchProperty('operating system', RICH)).toMatchObject({ key: '$os' });
  });
});

describe('templates', () => {
  beforeAll(() => loadParser());

  const prompts = [
    'daily pageviews last 2 weeks',
    'top 10 events by users',
    'weekly active users',
    'events by browser',
    'count of signups yesterday',
    'average session duration',
    'p95 session length per day for chrome users',
    'top pages',
    'top 5 screens by visitors',
    'users who did checkout started',
    'users who signed up but never purchased',
    'people who started checkout at least 3 times this week',
    'hourly purchases today by country',
    'signups by plan',
    'events by "odd key-with spaces"',
    'latest 20 purchases',
    'how many unique users',
    'signups and purchases last month',
    'pageviews where os is not Windows',
    'pageviews where pathname contains "50%_off"',
    'daily sessions',
    'pageviews by "groups"',
    `count of "x' OR 1=1 --" events`,
  ];

  it.each(prompts)('"%s" gives a draft that compiles for a project with or without data', (prompt) => {
    for (const c of [RICH, EMPTY_CATALOG]) {
      const out = draftOf(prompt, c);
      if (c === EMPTY_CATALOG && 'problem' in out) continue;
      expect(out, JSON.stringify(out)).toHaveProperty('sql');
      const sql = (out as { sql: string }).sql;
      expect(() =>
        compileSelect(sql, { teamId: 7, timezone: 'Europe/Paris', weekStartDay: 1, table: (t) => `db.${t}` }),
      ).not.toThrow();
    }
  });

  it('quotes odd keys and escapes values', () => {
    expect(draftOf('events by "odd key-with spaces"')).toMatchObject({
      sql: expect.stringContaining('properties.`odd key-with spaces`'),
    });
    expect(draftOf('pageviews where pathname contains "50%_off"')).toMatchObject({
      sql: expect.stringContaining("ILIKE '%50\\\\%\\\\_off%'"),
    });
    expect(draftOf('pageviews by "groups"')).toMatchObject({
      sql: expect.stringContaining('properties.groups AS groups_value'),
    });
    expect(draftOf('signups by plan')).toMatchObject({
      sql: expect.stringContaining('person.properties.plan AS plan'),
    });
  });

  it('never throws on arbitrary prompts, and whatever it drafts compiles', () => {
    const words = fc.constantFrom(
      'daily',
      'top',
      '10',
      'events',
      'by',
      'users',
      'who',
      'did',
      'not',
      'where',
      'is',
      '=',
      '"x y"',
      "'q'",
      'signups',
      'browser',
      'last',
      '2',
      'weeks',
      'yesterday',
      'only',
      'chrome',
      'session',
      'duration',
      'pages',
      'limit',
      'to',
      '$',
      '%',
      '`',
      '\\',
      '§0',
      'été',
      '😀',
      'and',
      'but',
      'never',
      '>=',
      'contains',
    );
    const prompt = fc.oneof(
      fc.string({ maxLength: 400 }),
      fc.array(words, { maxLength: 40 }).map((w) => w.join(' ')),
    );
    fc.assert(
      fc.property(prompt, (text) => {
        const out = draftOf(text);
        if ('sql' in out) {
          compileSelect(out.sql as string, { teamId: 1, timezone: 'UTC', weekStartDay: 0, table: (t) => t });
        }
      }),
      { numRuns: 400 },
    );
  });

  it('reads a worst-case 400-character prompt quickly', () => {
    for (const text of [
      'where a '.repeat(50),
      'a = '.repeat(100),
      `${'by '.repeat(130)}x`,
      '"'.repeat(400),
    ]) {
      const started = performance.now();
      draftOf(text.slice(0, 400));
      expect(performance.now() - started).toBeLessThan(100);
    }
  });

  it('refuses to guess', () => {
    expect(draftOf('daily zebras')).toMatchObject({
      problem: expect.stringContaining('No event like "zebras"'),
    });
    expect(draftOf('events by shoe size')).toMatchObject({
      problem: expect.stringContaining('No property like'),
    });
    expect(draftOf('users who did')).toMatchObject({ problem: 'Which event should the users have done?' });
    expect(draftOf('hello there')).toMatchObject({ problem: expect.any(String) });
  });
});

describe('per-user limiter', () => {
  it('enforces every rule, counts only what it lets through, and frees by sliding window', () => {
    const limiter = createLimiter([
      { limit: 2, windowMs: 1000 },
      { limit: 3, windowMs: 10_000 },
    ]);
    expect(limiter.take('a', 0).allowed).toBe(true);
    expect(limiter.take('a', 100).allowed).toBe(true);
    expect(limiter.take('a', 200)).toEqual({ allowed: false, retryAfterMs: 800 });
    expect(limiter.take('b', 200).allowed).toBe(true);
    expect(limiter.take('a', 1000).allowed).toBe(true);
    expect(limiter.take('a', 1500)).toEqual({ allowed: false, retryAfterMs: 8500 });
    expect(limiter.take('a', 10_001).allowed).toBe(true);
  });

  it('turns off with 0 and stays bounded in keys', () => {
    const off = createLimiter([{ limit: 0, windowMs: 1000 }]);
    for (let i = 0; i < 10; i++) expect(off.take('a', 0).allowed).toBe(true);
    const small = createLimiter([{ limit: 1, windowMs: 1000 }], 3);
    for (let i = 0; i < 10; i++) small.take(`k${i}`, 0);
    // The oldest keys were forgotten rather than kept forever.
    expect(small.take('k0', 1).allowed).toBe(true);
    expect(small.take('k9', 1).allowed).toBe(false);
  });
});

describe('model client', () => {
  it('finds the SQL in an answer', () => {
    expect(extractSql('Sure:\n```sql\nSELECT 1;\n```\nBye')).toEqual({ sql: 'SELECT 1' });
    expect(extractSql('```\nSELECT 2\n```')).toEqual({ sql: 'SELECT 2' });
    expect(extractSql('  SELECT 3 ;; ')).toEqual({ sql: 'SELECT 3' });
    expect(extractSql('UNCLEAR: not a data question')).toEqual({ unclear: 'not a data question' });
    expect(endpointOf('https://x.test/v1/')).toBe('https://x.test/v1/chat/completions');
    expect(endpointOf('https://x.test/openai/chat/completions')).toBe(
      'https://x.test/openai/chat/completions',
    );
  });

  it('reports an endpoint that refuses connections', async () => {
    const server = createServer();
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const { port } = server.address() as AddressInfo;
    await new Promise((ok) => server.close(ok));
    const config = { url: `http://127.0.0.1:${port}/v1`, apiKey: 'k', model: 'm', timeoutMs: 2000 };
    const err = await complete(config, [{ role: 'user', content: 'hi' }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect(err).toMatchObject({ kind: 'network', message: 'could not be reached (ECONNREFUSED)' });
  });
});
