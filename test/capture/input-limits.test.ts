import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGate } from '../../src/domain/slices.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * Inputs a security review sent that cost a request far more than its size (a 751 KB body that
 * held the event loop for 12 s) or reached a 500 (deep nesting, recursive CTEs, huge IN lists, an
 * endpoint that is no URL). Each must now be refused with a 4xx naming the problem, or accepted
 * without stalling the server. docs/limits.md lists the limits.
 */
const nestedArray = (depth: number, leaf = '1') => `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;
const nestedObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
// S3 destinations must bring keys (issue 29); these cases are about the endpoint URL.
const S3_KEYS = { aws_access_key_id: 'AKIDTEST', aws_secret_access_key: 'secret' };

/** Latencies of `/_health` polled back to back while `work` runs, in ms. */
async function healthWhile(base: string, work: Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  let done = false;
  const finished = work.finally(() => {
    done = true;
  });
  while (!done) {
    const start = performance.now();
    const res = await fetch(`${base}/_health`);
    await res.arrayBuffer();
    latencies.push(performance.now() - start);
  }
  await finished;
  return latencies;
}

describe(`capture limits (${backend})`, () => {
  let h: Harness;
  let base: string;
  let token: string;
  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    token = h.boot.project_api_key;
  });
  afterAll(async () => {
    await h?.close();
  });

  const batch = (events: unknown[]) => JSON.stringify({ api_key: token, batch: events });
  const post = (url: string, payload: string | Buffer, headers: Record<string, string> = {}) =>
    h.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', ...headers },
      payload,
    });
  const tiny = (n: number) => Array.from({ length: n }, (_, i) => ({ event: 'e', distinct_id: `d${i % 7}` }));

  it('300 000 tiny events in a 751 KB gzip body: a quick 413, /_health answering meanwhile', async () => {
    const body = gzipSync(batch(tiny(300_000)));
    expect(body.length).toBeLessThan(2 * 1024 * 1024);
    const started = performance.now();
    const request = fetch(`${base}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body,
    });
    const latencies = await healthWhile(base, request);
    const res = await request;
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({
      type: 'invalid_request',
      code: 'too_many_events',
      detail: expect.stringContaining('10000 events'),
      attr: null,
    });
    // Before the limits: a 200 after 15 s, with /_health blocked for 12 s. The bounds leave room
    // for a test machine shared with other work.
    expect(performance.now() - started).toBeLessThan(8000);
    expect(Math.max(...latencies)).toBeLessThan(1500);
  });

  it('the largest accepted request (10 000 events) is written while /_health keeps answering', {
    timeout: 60_000,
  }, async () => {
    const events = Array.from({ length: 10_000 }, (_, i) => ({
      event: 'big',
      distinct_id: `u${i % 500}`,
      properties: { i, url: `https://example.com/${i}`, $set: { plan: 'p' } },
    }));
    const body = gzipSync(batch(events));
    const request = fetch(`${base}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' },
      body,
    });
    const latencies = await healthWhile(base, request);
    expect((await request).status).toBe(200);
    latencies.sort((a, b) => a - b);
    // The strict figure (p99 < 50 ms with 8 clients) is measured by bench/capture-limits.ts; on a
    // shared test machine this only proves the loop is no longer held for the whole request.
    expect(latencies.at(-1)).toBeLessThan(1500);
  });

  it('a gzip bomb stops at the decoded limit: 413', async () => {
    const bomb = gzipSync(Buffer.alloc(200 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const res = await post('/e/', bomb, { 'content-encoding': 'gzip' });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({
      code: 'request_too_large',
      detail: expect.stringContaining('26214400'),
    });
  });

  it('an event above 1 MiB is a 413 naming the event; recordings may be larger', async () => {
    const big = { event: 'e', distinct_id: 'd', properties: { pad: 'x'.repeat(1024 * 1024) } };
    const res = await post('/batch/', batch([{ event: 'ok', distinct_id: 'd' }, big]));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({
      code: 'event_too_large',
      detail: 'Event 1 is larger than the limit of 1048576 bytes.',
    });
    const single = await post('/capture/', JSON.stringify({ ...big, api_key: token }));
    expect(single.json()).toMatchObject({
      code: 'event_too_large',
      detail: expect.stringMatching(/^The event/),
    });
    const snapshot = {
      event: '$snapshot',
      distinct_id: 'd',
      properties: {
        token,
        $session_id: 's-big',
        $window_id: 'w',
        $snapshot_data: [
          { type: 4, timestamp: 1_700_000_000_000, data: { href: 'x'.repeat(2 * 1024 * 1024) } },
        ],
      },
    };
    expect((await post('/s/', JSON.stringify([snapshot]))).statusCode).toBe(200);
  });

  it('nesting: 128 levels pass (as PostHog), deeper is a 400 in properties, $set and $snapshot_data', async () => {
    // The batch envelope, its list, the event and its properties take four levels.
    const ok = await post(
      '/batch/',
      `{"api_key":"${token}","batch":[{"event":"e","distinct_id":"d","properties":{"p":${nestedArray(124)}}}]}`,
    );
    expect(ok.statusCode).toBe(200);
    const deep = nestedArray(5000);
    const bodies = [
      post(
        '/batch/',
        `{"api_key":"${token}","batch":[{"event":"e","distinct_id":"d","properties":{"p":${nestedArray(125)}}}]}`,
      ),
      post(
        '/batch/',
        `{"api_key":"${token}","batch":[{"event":"e","distinct_id":"d","properties":{"p":${deep}}}]}`,
      ),
      post(
        '/e/',
        `[{"event":"e","distinct_id":"d","$set":${nestedObject(6000)},"properties":{"token":"${token}"}}]`,
      ),
      post(
        '/capture/',
        `{"event":"e","distinct_id":"d","api_key":"${token}","properties":{"$set":{"x":${deep}}}}`,
      ),
      post(
        '/s/',
        `[{"event":"$snapshot","distinct_id":"d","properties":{"token":"${token}","$session_id":"s","$window_id":"w","$snapshot_data":[{"type":2,"timestamp":1,"data":${nestedObject(6000)}}]}}]`,
      ),
      post('/flags/?v=2', `{"token":"${token}","distinct_id":"d","person_properties":${deep}}`),
    ];
    for (const res of await Promise.all(bodies)) {
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        type: 'validation_error',
        code: 'invalid_payload',
        detail: 'Malformed request data: JSON is nested too deeply (more than 128 levels)',
      });
    }
  });

  it('broken JSON between events is still a 400, and trailing data too', async () => {
    for (const payload of [
      `{"api_key":"${token}","batch":[{"event":"e","distinct_id":"d"} {"event":"e","distinct_id":"d"}]}`,
      `{"api_key":"${token}","batch":[{"event":"e","distinct_id":"d"},]}`,
      `{"api_key":"${token}","batch":[{"event":"e","distinct_id":"d"}]} x`,
      `{"api_key":"${token}" "batch":[]}`,
      `{"api_key":"${token}","batch":[{"event":"e","distinct_id":"d"`,
      `[{"event":"e","distinct_id":"d","properties":{"token":"${token}","a":"\\"}]`,
    ]) {
      const res = await post('/batch/', payload);
      expect([res.statusCode, res.json().code], payload).toEqual([400, 'invalid_payload']);
    }
  });
});

describe(`configured capture limits (${backend})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      CAPTURE_MAX_EVENTS: '5',
      CAPTURE_MAX_EVENT_BYTES: '2048',
      CAPTURE_MAX_DECODED_BYTES: '65536',
      CAPTURE_MAX_JSON_DEPTH: '10',
      CAPTURE_MAX_RECORDING_EVENT_BYTES: '4096',
    });
  });
  afterAll(async () => {
    await h?.close();
  });
  const send = (events: unknown[]) =>
    h.app.inject({
      method: 'POST',
      url: '/batch/',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ api_key: h.boot.project_api_key, batch: events }),
    });
  const ev = (properties: Record<string, unknown> = {}) => ({ event: 'e', distinct_id: 'd', properties });

  it('each limit holds at its value and one past it', async () => {
    expect((await send([ev(), ev(), ev(), ev(), ev()])).statusCode).toBe(200);
    expect((await send([ev(), ev(), ev(), ev(), ev(), ev()])).json().code).toBe('too_many_events');
    expect((await send([ev({ pad: 'x'.repeat(1900) })])).statusCode).toBe(200);
    expect((await send([ev({ pad: 'x'.repeat(2100) })])).json().code).toBe('event_too_large');
    // Levels: envelope, batch, event, properties, then 6 more.
    expect((await send([ev({ a: JSON.parse(nestedArray(6)) })])).statusCode).toBe(200);
    expect((await send([ev({ a: JSON.parse(nestedArray(7)) })])).json().detail).toContain(
      'more than 10 levels',
    );
    const snapshot = (pad: number) => ({
      event: '$snapshot',
      distinct_id: 'd',
      properties: {
        token: h.boot.project_api_key,
        $session_id: 's',
        $window_id: 'w',
        $snapshot_data: [{ type: 4, timestamp: 1, data: { href: 'x'.repeat(pad) } }],
      },
    });
    const recording = (pad: number) =>
      h.app.inject({
        method: 'POST',
        url: '/s/',
        payload: JSON.stringify([snapshot(pad)]),
        headers: { 'content-type': 'application/json' },
      });
    expect((await recording(3000)).statusCode).toBe(200);
    expect((await recording(5000)).json()).toMatchObject({
      code: 'event_too_large',
      detail: expect.stringContaining('4096 bytes'),
    });
    const large = JSON.stringify({ api_key: 'k', batch: [ev()], pad: 'x'.repeat(70_000) });
    const res = await h.app.inject({
      method: 'POST',
      url: '/batch/',
      payload: gzipSync(large),
      headers: { 'content-encoding': 'gzip' },
    });
    expect([res.statusCode, res.json().code]).toEqual([413, 'request_too_large']);
  });
});

describe('the capture gate', () => {
  it('lets CAPTURE_CONCURRENCY holders in at once, the others in arrival order', async () => {
    const gate = createGate(2);
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        gate.run(undefined, async () => {
          inside++;
          most = Math.max(most, inside);
          order.push(i);
          await new Promise((r) => setTimeout(r, 5));
          inside--;
        }),
      ),
    );
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    // A failing holder frees its slot.
    await expect(gate.run(undefined, async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    expect(await gate.run(undefined, async () => 'free')).toBe('free');
  });
});

describe(`deep and oversized inputs elsewhere (${backend})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });
  const query = (payload: string) =>
    h.app.inject({
      method: 'POST',
      url: `/api/environments/${h.boot.project_id}/query/`,
      headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
      payload,
    });
  const hogql = (q: string) => query(JSON.stringify({ query: { kind: 'HogQLQuery', query: q } }));
  const expect400 = async (res: Promise<{ statusCode: number; json(): unknown }>, detail: RegExp) => {
    const r = await res;
    expect(r.statusCode).toBe(400);
    expect((r.json() as { detail: string }).detail).toMatch(detail);
  };

  it('a /query body nested 5 000 deep is a 400, in arrays and in objects', async () => {
    const hogqlWith = (values: string) =>
      `{"query":{"kind":"HogQLQuery","query":"select 1","values":${values}}}`;
    await expect400(query(hogqlWith(nestedArray(5000))), /nested too deeply \(more than 100 levels\)/);
    await expect400(query(hogqlWith(nestedObject(5000))), /nested too deeply/);
    // Filters as PostHog nests them stay far below the limit.
    const group = (d: number): unknown =>
      d === 0
        ? { type: 'event', key: 'a', value: 'b', operator: 'exact' }
        : { type: 'AND', values: [group(d - 1)] };
    const res = await query(
      JSON.stringify({ query: { kind: 'EventsQuery', select: ['event'], properties: [group(3)] } }),
    );
    expect(res.statusCode).toBe(200);
  });

  it('recording list filters in the query string nested deeply are a 400', async () => {
    const res = await h.app.inject({
      method: 'GET',
      url: `/api/environments/${h.boot.project_id}/session_recordings/?properties=${encodeURIComponent(nestedArray(3000))}`,
      headers: { authorization: `Bearer ${h.key}` },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      attr: 'properties',
      detail: expect.stringMatching(/nested too deeply/i),
    });
  });

  it('WITH RECURSIVE, and a CTE naming itself, are refused by name', async () => {
    await expect400(
      hogql('WITH RECURSIVE t AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT n FROM t'),
      /^Recursive CTEs are not supported: t refers to itself/,
    );
    await expect400(hogql('WITH t AS (SELECT * FROM t) SELECT * FROM t'), /CTE t refers to itself/);
    await expect400(hogql('WITH x + 1 AS x SELECT x'), /CTE x refers to itself/);
    // CTEs that use each other without a cycle still resolve.
    const ok = await hogql('WITH a AS (SELECT 1 AS n), b AS (SELECT n FROM a) SELECT n FROM b');
    expect(ok.statusCode).toBe(200);
  });

  it('transform() over scalar subqueries with several rows or none is a 400 from the engine', async () => {
    await expect400(
      hogql("select transform(1, [(SELECT 1 UNION ALL SELECT 2)], ['b'], 'c')"),
      /Scalar subquery returned more than one row/,
    );
    await expect400(
      hogql("select transform(event, [(SELECT event FROM events)], ['b'], 'c') from events"),
      /NULL/,
    );
    const ok = await hogql("select transform('a', [(SELECT 'a')], [(SELECT 'b')], (SELECT 'c'))");
    expect(ok.json().results).toEqual([['b']]);
  });

  it('an IN list of 110 000 strings is a 400 naming the size; 10 000 run', async () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => `'e${i}'`).join(',');
    await expect400(
      hogql(`select 1 from events where event in (${list(110_000)})`),
      /^Query is too large: it compiles to \d+ bytes/,
    );
    expect((await hogql(`select 1 from events where event in (${list(10_000)})`)).statusCode).toBe(200);
  });

  it('an S3 endpoint_url that is no URL (http://::1:9000) is a 400', async () => {
    const res = await h.request('POST', `/api/projects/${h.boot.project_id}/batch_exports/`, {
      body: {
        name: 's3',
        interval: 'hour',
        destination: {
          type: 'S3',
          config: {
            ...S3_KEYS,
            bucket_name: 'b',
            region: 'us-east-1',
            prefix: 'p',
            endpoint_url: 'http://::1:9000',
          },
        },
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ attr: 'destination', detail: expect.stringContaining('not a URL') });
    const ftp = await h.request('POST', `/api/projects/${h.boot.project_id}/batch_exports/`, {
      body: {
        name: 's3',
        interval: 'hour',
        destination: {
          type: 'S3',
          config: { ...S3_KEYS, bucket_name: 'b', region: 'us-east-1', prefix: 'p', endpoint_url: 'ftp://x' },
        },
      },
    });
    expect(ftp.statusCode).toBe(400);
  });
});
