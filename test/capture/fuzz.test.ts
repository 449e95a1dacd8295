import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import LZString from 'lz-string';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * Generated capture requests, valid and hostile, in every wrapping the SDKs use: whatever the
 * body, the answer is a 200 or a 4xx in PostHog's shape (never a 500, never a hang), and a
 * prober polling `/_health` meanwhile keeps getting quick answers. Small limits make the
 * generated bodies reach them.
 */
const ROUTES = ['/batch/', '/e/', '/capture/', '/i/v0/e/', '/track/', '/engage/', '/s/', '/flags/?v=2'];

describe(`capture fuzz (${backend})`, () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness({
      INGEST_BATCH_DELAY_MS: '2',
      CAPTURE_MAX_EVENTS: '50',
      CAPTURE_MAX_EVENT_BYTES: '8192',
      CAPTURE_MAX_RECORDING_EVENT_BYTES: '16384',
      CAPTURE_MAX_DECODED_BYTES: '131072',
      CAPTURE_MAX_JSON_DEPTH: '32',
    });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await h?.close();
  });

  const token = () => h.boot.project_api_key;
  const json = fc.jsonValue({ maxDepth: 6 });
  const deep = fc
    .tuple(fc.integer({ min: 1, max: 6000 }), fc.constantFrom('[', '{"k":'), fc.boolean())
    .map(([depth, open, closed]) => {
      const close = open === '[' ? ']' : '}';
      return `${open.repeat(depth)}1${closed ? close.repeat(depth) : ''}`;
    });
  const event = fc.record(
    {
      event: fc.oneof(
        fc.constantFrom('$pageview', '$identify', '$snapshot', '$groupidentify', ''),
        fc.string(),
      ),
      distinct_id: fc.oneof(fc.string({ maxLength: 300 }), fc.integer(), fc.constant(null)),
      properties: fc.oneof(fc.dictionary(fc.string({ maxLength: 12 }), json, { maxKeys: 8 }), json),
      $set: json,
      timestamp: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        fc.string(),
        fc.integer(),
      ),
      uuid: fc.oneof(fc.uuid(), fc.string()),
    },
    { requiredKeys: [] },
  );
  /** JSON text of a body: well-formed shapes, deep nesting spliced in, or text cut and mutated. */
  const text = fc.oneof(
    fc.array(event, { maxLength: 60 }).map((events) => JSON.stringify({ api_key: token(), batch: events })),
    fc
      .array(event, { maxLength: 60 })
      .map((events) => JSON.stringify(events.map((e) => ({ ...e, token: token() })))),
    event.map((e) => JSON.stringify({ ...e, api_key: token() })),
    deep.map(
      (d) => `{"api_key":"${token()}","batch":[{"event":"e","distinct_id":"d","properties":{"p":${d}}}]}`,
    ),
    deep.map((d) => `[{"event":"e","distinct_id":"d","$set":${d},"properties":{"token":"${token()}"}}]`),
    fc
      .tuple(fc.array(event, { maxLength: 10 }), fc.nat(), fc.string({ maxLength: 4 }))
      .map(([events, at, insert]) => {
        const valid = JSON.stringify({ api_key: token(), batch: events });
        const i = at % (valid.length + 1);
        return valid.slice(0, i) + insert + valid.slice(i + (at % 3));
      }),
    json.map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 200 }),
  );
  const wrapping = fc.constantFrom(
    'plain',
    'gzip-header',
    'gzip-magic',
    'deflate',
    'br',
    'base64-form',
    'lz64',
    'get',
  );
  const request = fc.record({ route: fc.constantFrom(...ROUTES), text, wrapping, bomb: fc.boolean() });

  function build(r: { route: string; text: string; wrapping: string; bomb: boolean }) {
    const body = r.bomb ? `${r.text}${' '.repeat(200_000)}` : r.text;
    const headers: Record<string, string> = { 'content-type': 'text/plain' };
    let payload: Buffer | string | undefined = body;
    let url = r.route;
    const join = url.includes('?') ? '&' : '?';
    switch (r.wrapping) {
      case 'gzip-header':
        payload = gzipSync(body);
        headers['content-encoding'] = 'gzip';
        break;
      case 'gzip-magic':
        payload = gzipSync(body);
        break;
      case 'deflate':
        payload = deflateSync(body);
        headers['content-encoding'] = 'deflate';
        break;
      case 'br':
        payload = brotliCompressSync(body);
        headers['content-encoding'] = 'br';
        break;
      case 'base64-form':
        payload = `data=${encodeURIComponent(Buffer.from(body).toString('base64'))}`;
        headers['content-type'] = 'application/x-www-form-urlencoded';
        break;
      case 'lz64':
        payload = `data=${encodeURIComponent(LZString.compressToBase64(body))}`;
        headers['content-type'] = 'application/x-www-form-urlencoded';
        url = `${url}${join}compression=lz64`;
        break;
      case 'get':
        payload = undefined;
        url = `${url}${join}data=${encodeURIComponent(Buffer.from(body.slice(0, 4000)).toString('base64'))}`;
        break;
    }
    return { url, headers, payload };
  }

  it('never answers 500 and /_health keeps answering', { timeout: 600_000 }, async () => {
    // Generated and encoded up front: compressing in this process while probing would count the
    // client's own work as the server's stalls.
    const requests = fc.sample(request, { numRuns: 400, seed: 1515 }).map((r) => ({ r, ...build(r) }));
    const latencies: number[] = [];
    let running = true;
    const prober = (async () => {
      while (running) {
        const start = performance.now();
        const res = await fetch(`${base}/_health`);
        await res.arrayBuffer();
        latencies.push(performance.now() - start);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const statuses = new Map<number, number>();
    try {
      for (const { r, url, headers, payload } of requests) {
        const res = await fetch(`${base}${url}`, {
          method: payload === undefined ? 'GET' : 'POST',
          headers,
          ...(payload === undefined ? {} : { body: payload }),
        });
        const text = await res.text();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const what = `${r.route} ${r.wrapping} ${JSON.stringify(r.text.slice(0, 200))}: ${text}`;
        expect(res.status, what).toBeLessThan(500);
        if (res.status >= 400) {
          const body = JSON.parse(text) as Record<string, unknown>;
          expect(Object.keys(body).sort(), what).toEqual(['attr', 'code', 'detail', 'type']);
          expect(typeof body.detail).toBe('string');
        }
      }
    } finally {
      running = false;
      await prober;
    }
    latencies.sort((a, b) => a - b);
    console.info(
      `capture fuzz: statuses ${JSON.stringify(Object.fromEntries(statuses))}; /_health p50 ${latencies[Math.floor(latencies.length / 2)]?.toFixed(1)} ms, max ${latencies.at(-1)?.toFixed(1)} ms over ${latencies.length} probes`,
    );
    // Some of each: the generator reaches both the accepted and the refused paths.
    expect(statuses.get(200)).toBeGreaterThan(20);
    expect([...statuses.keys()].filter((s) => s >= 400).length).toBeGreaterThanOrEqual(2);
    expect(latencies.at(-1)).toBeLessThan(1000);
  });
});
