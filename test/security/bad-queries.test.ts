import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { createLogger } from '../../src/server/logger.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * Bad HogQL a user can send. Each must be answered by the user's own fault (a 400 in PostHog's
 * shape naming the problem) or run; none may be a 500. The first ones are the list.
 */
const MUST_REFUSE: Array<[string, RegExp]> = [
  ['SELECT * FROM events PASTE JOIN persons', /JOIN needs an ON or USING clause/],
  ["SELECT base64Decode('!!!')", /base64Decode/],
  ['SELECT quantile(2)(1)', /out of range/],
  ['SELECT arrayResize([1], 100000000000)', /Too large array size/],
  ["SELECT JSONExtract('{}', 'x', 'NotAType')", /Unknown data type family: NotAType/],
  ['SELECT number FROM numbers(3) ORDER BY number WITH FILL STEP 0', /STEP value cannot be zero/],
  ['SELECT 1 LIMIT 1 WITH TIES OFFSET 1', /WITH TIES without ORDER BY/],
  ['WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r', /no named columns/],
  ['SELECT transform(1, [1], [(SELECT event FROM events)])', /transform/],
  ["SELECT transform(1, [1], [(SELECT 'a' FROM numbers(2))])", /more than one row/],
  ['SELECT 1 FROM events JOIN persons', /JOIN needs an ON or USING clause/],
  ['SELECT 1 FROM events NATURAL JOIN persons', /needs an ON or USING clause/],
  ['SELECT 1 FROM events e LEFT JOIN persons p', /LEFT JOIN needs an ON or USING clause/],
  ['SELECT event FROM events POSITIONAL JOIN persons', /POSITIONAL JOIN/],
  ['SELECT * FROM (SELECT 1)', /no named columns/],
  ['SELECT * FROM (SELECT 1) AS a JOIN (SELECT 2) AS b USING (x)', /no named columns/],
  ['SELECT event FROM events SAMPLE -1', /SAMPLE takes/],
  ["SELECT JSONExtract('{}', 'x', 'Array(')", /Syntax error \(data type\)/],
  ["SELECT sequenceMatch('(?1)(?2')(toDateTime(0), 1 = 1, 1 = 1)", /parenthesis/],
  ['SELECT number FROM numbers(10) ORDER BY number WITH FILL FROM 10 TO 0 STEP 1', /WITH FILL/],
  ['SELECT 1 UNION ALL SELECT 1, 2', /number of columns/i],
  ["SELECT [1] = 'a'", /Array/],
  ['SELECT quantiles(1.5)(1)', /out of range/],
  ['SELECT 1 LIMIT 1 WITH TIES', /WITH TIES without ORDER BY/],
  ['SELECT intDiv(1, 0)', /Division by zero/],
  ['SELECT tupleElement((1, 2), 3)', /index/],
  ["SELECT repeat('a', 10000000000)", /Too large string size/],
  ['SELECT range(100000000000)', /array elements/],
  ["SELECT match('a', '(')", /cannot compile re2/],
  ["SELECT toDateTime('2020-01-01 00:00:00', 'Not/AZone')", /time zone/],
  ['SELECT arrayMap(x -> x, 1)', /must be Array/],
  ["SELECT sum('a')", /sum/],
  ['SELECT topK(0)(1)', /topK/],
  ["SELECT splitByChar('ab', 'x')", /separator/],
  ['SELECT toStartOfInterval(now(), toIntervalSecond(0))', /positive/],
  ["SELECT dateDiff('fortnight', now(), now())", /fortnight/],
  ["SELECT extract('a', '[')", /cannot compile re2/],
  ['SELECT arrayZip([1], [1, 2])', /array sizes/],
  ['SELECT toDateTime64(now(), 20)', /Scale/],
  [
    'SELECT any(event) OVER (ORDER BY timestamp ROWS BETWEEN 5 FOLLOWING AND 1 PRECEDING) FROM events',
    /Frame/,
  ],
  ['SELECT number FROM numbers(-1)', /UInt64/],
  ['SELECT sumMap([1], [1, 2])', /Sizes/],
  ['SELECT 1 FROM numbers(1) AS n ASOF JOIN numbers(1) AS m ON n.number = m.number', /ASOF/],
  ['SELECT uniqUpTo(1000)(1)', /uniqUpTo/],
  ['SELECT groupArraySample(-1)(1)', /positive/],
  ['SELECT encodeURLComponent(1)', /encodeURLComponent/],
];

/** Odd but valid: these run (the engine's own answer), and are here so that they stay off 500. */
const MAY_RUN = [
  'SELECT event FROM events ORDER BY event LIMIT 1 WITH TIES OFFSET 1',
  'WITH RECURSIVE r AS (SELECT 1 AS x) SELECT * FROM r',
  "SELECT toDate('not a date')",
  "SELECT parseDateTimeBestEffort('nope')",
  "SELECT formatDateTime(now(), '%Q')",
  'SELECT lagInFrame(event, -1) OVER (ORDER BY timestamp) FROM events',
  'SELECT event FROM events SAMPLE 0',
  'SELECT event FROM events SAMPLE 1/10 OFFSET 1/2',
  'SELECT number FROM numbers(1) LIMIT -1',
  'SELECT toDateTime(1e30)',
  'SELECT 1 GROUP BY 1 WITH TOTALS HAVING 1',
  "SELECT position('abc', 'b', 0)",
  "SELECT substring('abc', 0, -5)",
];

const ERROR_KEYS = ['attr', 'code', 'detail', 'type'];

describe(`bad queries answer 4xx, never 500 (${backend})`, () => {
  let h: Harness;
  let query: string;
  let mcp: string;
  beforeAll(async () => {
    h = await startHarness();
    query = `/api/environments/${h.boot.project_id}/query/`;
    mcp = `/api/environments/${h.boot.project_id}/mcp_tools/execute_sql/`;
  });
  afterAll(async () => {
    await h?.close();
  });

  const run = (q: string) => h.request('POST', query, { body: { query: { kind: 'HogQLQuery', query: q } } });

  it('refuses each with a 400 naming the problem', async () => {
    const wrong: string[] = [];
    for (const [q, detail] of MUST_REFUSE) {
      const res = await run(q);
      const body = res.json();
      if (res.statusCode !== 400 || !detail.test(String(body.detail)))
        wrong.push(`${q} => ${res.statusCode} ${res.body.slice(0, 200)}`);
      else expect(Object.keys(body).sort()).toEqual(ERROR_KEYS);
    }
    expect(wrong).toEqual([]);
  });

  it('runs the odd but valid ones', async () => {
    const wrong: string[] = [];
    for (const q of MAY_RUN) {
      const res = await run(q);
      if (res.statusCode !== 200) wrong.push(`${q} => ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('answers the same through the MCP execute_sql tool, as a tool failure', async () => {
    const wrong: string[] = [];
    for (const [q, detail] of MUST_REFUSE) {
      const res = await h.request('POST', mcp, { body: { args: { query: q } } });
      const body = res.json();
      if (res.statusCode !== 200 || body.success !== false || !detail.test(body.content))
        wrong.push(`${q} => ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe(`a genuine 500 is logged with its request id (${backend})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('logs the engine error at error level (seen at LOG_LEVEL=warn) and answers a bare 500', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
        done();
      },
    });
    // A second app on the harness's stores, with the production logger at warn.
    const app = await buildApp({
      config: { ...h.config, captureJournal: false },
      meta: h.stores.meta,
      events: h.stores.events,
      logger: createLogger('warn', sink),
    });
    const sessions = h.stores.events.table('sessions');
    const away = h.stores.events.table('sessions_away');
    // A store that lost a table: the engine's UNKNOWN_TABLE is Burrow's fault, not the user's.
    await h.stores.events.command(`RENAME TABLE ${sessions} TO ${away}`);
    try {
      const res = await app.inject({
        method: 'POST',
        url: `/api/environments/${h.boot.project_id}/query/`,
        headers: { authorization: `Bearer ${h.key}`, 'x-request-id': 'req-500-check' },
        payload: { query: { kind: 'HogQLQuery', query: 'SELECT count() FROM sessions' } },
      });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({
        type: 'server_error',
        code: 'error',
        detail: 'ClickHouse error while executing query.',
        attr: null,
      });
      expect(res.headers['x-request-id']).toBe('req-500-check');
      const logged = lines.find((l) => l.requestId === 'req-500-check');
      expect(logged).toBeDefined();
      expect(logged?.level).toBe(50);
      expect(logged?.reqId).toBe('req-500-check');
      expect(JSON.stringify(logged?.err)).toMatch(/UNKNOWN_TABLE|sessions/);
      // Users' own mistakes stay out of the error log.
      const bad = await app.inject({
        method: 'POST',
        url: `/api/environments/${h.boot.project_id}/query/`,
        headers: { authorization: `Bearer ${h.key}`, 'x-request-id': 'req-400-check' },
        payload: { query: { kind: 'HogQLQuery', query: 'SELECT intDiv(1, 0)' } },
      });
      expect(bad.statusCode).toBe(400);
      expect(lines.some((l) => l.requestId === 'req-400-check')).toBe(false);
    } finally {
      await h.stores.events.command(`RENAME TABLE ${away} TO ${sessions}`);
      await app.close();
    }
  });
});
