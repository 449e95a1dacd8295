import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import LZString from 'lz-string';
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBase64 } from '../../src/capture/bytes.js';
import { decodeCapture, decodeCaptureAsync } from '../../src/capture/decode.js';
import { normalizeEvent, parseTime } from '../../src/capture/normalize.js';
import { INLINE_MAX_INPUT, INLINE_MAX_OUTPUT } from '../../src/capture/steps.js';
import type { DecodeInput, RawEvent } from '../../src/capture/types.js';
import { isLowerUuid, uuidv7, validUuid } from '../../src/capture/uuid.js';
import { ApiError } from '../../src/errors.js';

interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A tiny server that records what the SDKs send, answering like PostHog. */
let server: Server;
let base: string;
const recorded: Recorded[] = [];
const beacons: Recorded[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      recorded.push({
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      res.setHeader('content-type', 'application/json');
      res.end('{"status":1}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const toInput = (r: Recorded): DecodeInput => {
  const url = new URL(r.url, base);
  return {
    method: r.method === 'GET' ? 'GET' : 'POST',
    contentType: r.headers['content-type'],
    contentEncoding: r.headers['content-encoding'] as string | undefined,
    query: Object.fromEntries(url.searchParams),
    body: r.body,
  };
};

const post = (body: Buffer | string, extra: Partial<DecodeInput> = {}): DecodeInput => ({
  method: 'POST',
  query: {},
  body: Buffer.from(body),
  ...extra,
});

function errorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

async function waitFor(list: Recorded[], count: number) {
  for (let i = 0; i < 200 && list.length < count; i++) await new Promise((r) => setTimeout(r, 10));
  expect(list.length).toBeGreaterThanOrEqual(count);
}

describe('posthog-node payloads', () => {
  async function send(options: Record<string, unknown>, act: (client: PostHog) => void) {
    recorded.length = 0;
    const client = new PostHog('phc_node', { host: base, flushAt: 1, flushInterval: 0, ...options });
    act(client);
    await client.shutdown();
    return recorded.splice(0);
  }

  it('decodes gzip batches (Content-Encoding: gzip) with every call type', async () => {
    const sent = await send({ flushAt: 10 }, (client) => {
      client.capture({ distinctId: 'u1', event: 'clicked', properties: { n: 1 } });
      client.capture({ distinctId: 'u1', event: 'bought', timestamp: new Date('2024-01-02T03:04:05Z') });
      client.identify({ distinctId: 'u1', properties: { email: 'a@b.c', $set_once: { first: 1 } } });
      client.alias({ distinctId: 'u1', alias: 'other' });
      client.groupIdentify({ groupType: 'company', groupKey: 'acme', properties: { plan: 'pro' } });
    });
    expect(sent).toHaveLength(1);
    const [request] = sent;
    expect(request!.url).toBe('/batch/');
    expect(request!.headers['content-encoding']).toBe('gzip');
    const decoded = decodeCapture(toInput(request!));
    expect(decoded.token).toBe('phc_node');
    expect(decoded.sentAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(decoded.historicalMigration).toBe(false);
    expect(decoded.events.map((e) => e.event)).toEqual([
      'clicked',
      'bought',
      '$identify',
      '$create_alias',
      '$groupidentify',
    ]);
    const [clicked, bought, identify] = decoded.events;
    expect(clicked!.distinct_id).toBe('u1');
    expect(clicked!.properties).toMatchObject({ n: 1, $lib: 'posthog-node' });
    expect(validUuid(clicked!.uuid)).toBeDefined();
    expect(bought!.timestamp).toBe('2024-01-02T03:04:05.000Z');
    expect(identify!.properties).toMatchObject({ $set: { email: 'a@b.c' }, $set_once: { first: 1 } });
    expect(decoded.events[4]!.distinct_id).toBe('$company_acme');
  });

  it('decodes uncompressed batches and historical migration', async () => {
    const sent = await send({ disableCompression: true, historicalMigration: true }, (client) =>
      client.capture({ distinctId: 42 as unknown as string, event: 'e' }),
    );
    expect(sent[0]!.headers['content-encoding']).toBeUndefined();
    expect(sent[0]!.headers['content-type']).toBe('application/json');
    const decoded = decodeCapture(toInput(sent[0]!));
    expect(decoded.historicalMigration).toBe(true);
    expect(normalizeEvent(decoded.events[0]!, { now: new Date() }).distinctId).toBe('42');
  });
});

describe('posthog-js payloads (the SDK’s own request module)', () => {
  type JsRequest = (options: Record<string, unknown>) => void;
  let request: JsRequest;
  const now = new Date();
  const jsEvent = (event: string, extra: Record<string, unknown> = {}) => ({
    uuid: uuidv7(),
    event,
    properties: { token: 'phc_js', distinct_id: 'anon-1', $lib: 'web', $session_id: 's1' },
    timestamp: now,
    ...extra,
  });

  beforeAll(async () => {
    // The SDK picks its transports when loaded: give it a sendBeacon that records.
    (globalThis as { navigator?: unknown }).navigator = {
      sendBeacon: (url: string, blob: Blob) => {
        void blob.arrayBuffer().then((body) =>
          beacons.push({
            method: 'POST',
            url: new URL(url).pathname + new URL(url).search,
            headers: { 'content-type': blob.type },
            body: Buffer.from(body),
          }),
        );
        return true;
      },
    };
    ({ request } = (await import('posthog-js/lib/src/request.js')) as unknown as { request: JsRequest });
  });

  async function jsSend(options: Record<string, unknown>) {
    recorded.length = 0;
    request({ method: 'POST', timestampMode: 'capture-body', ...options });
    await waitFor(recorded, 1);
    return recorded.splice(0)[0]!;
  }

  it('/e/ gzip: text/plain, magic bytes, no Content-Encoding and no compression parameter', async () => {
    const r = await jsSend({
      url: `${base}/e/?ver=1.449.2`,
      data: [jsEvent('$pageview', { $set_once: { $initial_referrer: '$direct' } }), jsEvent('$autocapture')],
      compression: 'gzip-js',
    });
    expect(r.headers['content-type']).toBe('text/plain');
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.url).toBe('/e/?ver=1.449.2');
    expect(r.body.subarray(0, 2).toString('hex')).toBe('1f8b');
    const decoded = decodeCapture(toInput(r));
    expect(decoded.token).toBe('phc_js');
    expect(decoded.sentAt).toBeDefined();
    expect(decoded.events.map((e) => e.event)).toEqual(['$pageview', '$autocapture']);
    const clean = normalizeEvent(decoded.events[0]!, { now, sentAt: decoded.sentAt });
    expect(clean.distinctId).toBe('anon-1');
    expect(clean.properties.$set_once).toEqual({ $initial_referrer: '$direct' });
  });

  it('/e/ synchronous (fflate) gzip and plain JSON', async () => {
    const sync = await jsSend({
      url: `${base}/e/`,
      data: [jsEvent('a')],
      compression: 'gzip-js',
      preferSyncCompression: true,
    });
    expect(decodeCapture(toInput(sync)).events[0]!.event).toBe('a');
    const plain = await jsSend({ url: `${base}/e/`, data: [jsEvent('b')] });
    expect(plain.headers['content-type']).toBe('application/json');
    expect(decodeCapture(toInput(plain)).events[0]!.event).toBe('b');
  });

  it('/e/ base64 form bodies, by fetch and by sendBeacon', async () => {
    const form = await jsSend({ url: `${base}/e/`, data: [jsEvent('é ☃ +/=')], compression: 'base64' });
    expect(form.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(form.url).toBe('/e/?compression=base64');
    expect(decodeCapture(toInput(form)).events[0]!.event).toBe('é ☃ +/=');

    beacons.length = 0;
    request({
      url: `${base}/e/?ver=1.449.2`,
      method: 'POST',
      data: [jsEvent('$pageleave')],
      transport: 'sendBeacon',
      timestampMode: 'capture-body',
    });
    await waitFor(beacons, 1);
    const beacon = beacons[0]!;
    expect(beacon.url).toBe('/e/?ver=1.449.2&compression=base64');
    expect(beacon.body.toString().startsWith('data=')).toBe(true);
    const decoded = decodeCapture(toInput(beacon));
    expect(decoded.events[0]!.event).toBe('$pageleave');
    expect(decoded.token).toBe('phc_js');
  });

  it('/s/ recordings: a gzipped array of $snapshot events, each with its own sent_at', async () => {
    const snapshot = jsEvent('$snapshot', {
      properties: {
        token: 'phc_js',
        distinct_id: 'anon-1',
        $snapshot_data: [{ type: 2, data: {} }],
        $session_id: 's1',
      },
    });
    const r = await jsSend({
      url: `${base}/s/`,
      data: [snapshot],
      compression: 'gzip-js',
      timestampMode: 'body',
    });
    const decoded = decodeCapture(toInput(r));
    expect(decoded.sentAt).toBeUndefined();
    expect(decoded.token).toBe('phc_js');
    expect(decoded.events[0]!.event).toBe('$snapshot');
    expect(typeof decoded.events[0]!.sent_at).toBe('string');
  });
});

describe('other encodings', () => {
  const batch = { api_key: 'phc_x', batch: [{ event: 'e', distinct_id: 'd' }] };
  const json = JSON.stringify(batch);

  it('single events, arrays and text/plain JSON', () => {
    const one = decodeCapture(post('{"event":"e","distinct_id":"d","api_key":"phc_1","sent_at":"x"}'));
    expect(one).toMatchObject({ token: 'phc_1', sentAt: 'x', events: [{ event: 'e' }] });
    const arr = decodeCapture(post('[{"event":"e","properties":{"distinct_id":"d","token":"t"}}]'));
    expect(arr.token).toBe('t');
    expect(decodeCapture(post(json, { contentType: 'text/plain;charset=UTF-8' })).token).toBe('phc_x');
  });

  it('gzip by header, by compression=gzip-js and by magic bytes; deflate and br headers', () => {
    const gz = gzipSync(json);
    expect(decodeCapture(post(gz, { contentEncoding: 'gzip' })).events).toHaveLength(1);
    expect(decodeCapture(post(gz, { query: { compression: 'gzip-js', ver: '1.0', _: '123' } })).token).toBe(
      'phc_x',
    );
    expect(decodeCapture(post(gz, { contentType: 'application/json' })).token).toBe('phc_x');
    expect(decodeCapture(post(deflateSync(json), { contentEncoding: 'deflate' })).token).toBe('phc_x');
    expect(decodeCapture(post(brotliCompressSync(json), { contentEncoding: 'br' })).token).toBe('phc_x');
  });

  it('form data= with urlencoded JSON, base64, and compression as a form field', () => {
    const form = 'application/x-www-form-urlencoded';
    expect(decodeCapture(post(`data=${encodeURIComponent(json)}`, { contentType: form })).token).toBe(
      'phc_x',
    );
    const b64 = Buffer.from(json).toString('base64');
    expect(decodeCapture(post(`data=${encodeURIComponent(b64)}&compression=base64`)).token).toBe('phc_x');
    // An unescaped base64 `+` arrives as a space.
    const plus = Buffer.from('{"event":">>>","distinct_id":"d"}').toString('base64');
    expect(plus).toContain('+');
    expect(decodeCapture(post(`data=${plus}`, { contentType: form })).events[0]!.event).toBe('>>>');
    // Also at the very end, where a trim would lose it.
    expect(decodeBase64('Pj4 ').toString()).toBe('>>>');
  });

  it('lz64 (old posthog-js), checked against lz-string itself', () => {
    const lz = LZString.compressToBase64(json);
    const input = post(`data=${encodeURIComponent(lz)}`, {
      contentType: 'application/x-www-form-urlencoded',
      query: { compression: 'lz64' },
    });
    expect(decodeCapture(input).token).toBe('phc_x');
    const unescaped = post(`data=${lz}`, { query: { compression: 'lz64' } });
    expect(decodeCapture(unescaped).token).toBe('phc_x');
  });

  it('GET ?data= as base64 or JSON; POST with an empty body reads ?data= too', () => {
    const b64 = Buffer.from(json).toString('base64');
    expect(decodeCapture({ method: 'GET', query: { data: b64, ver: '1' }, body: undefined }).token).toBe(
      'phc_x',
    );
    expect(decodeCapture({ method: 'GET', query: { data: json }, body: undefined }).events).toHaveLength(1);
    expect(decodeCapture({ method: 'POST', query: { data: json }, body: Buffer.alloc(0) }).token).toBe(
      'phc_x',
    );
    const gzB64 = gzipSync(json).toString('base64');
    expect(decodeCapture({ method: 'GET', query: { data: gzB64 }, body: undefined }).token).toBe('phc_x');
  });
});

describe('malformed payloads', () => {
  const invalid = (input: DecodeInput, status = 400, code = 'invalid_payload') => {
    const error = errorOf(() => decodeCapture(input, { maxDecodedBytes: 100_000 }));
    expect(error.status).toBe(status);
    expect(error.code).toBe(code);
    expect(error.toBody().attr).toBeNull();
    return error;
  };

  it('bad gzip, truncated gzip, a gzip header on plain text', () => {
    invalid(post(Buffer.from([0x1f, 0x8b, 1, 2, 3, 4])));
    const gz = gzipSync('{"event":"e","distinct_id":"d"}');
    invalid(post(gz.subarray(0, gz.length - 6)));
    invalid(post('{"event":"e","distinct_id":"d"}', { contentEncoding: 'gzip' }));
    invalid(post('{}', { query: { compression: 'gzip-js' } }));
  });

  it('bad base64, bad lz64, bad JSON, no data', () => {
    expect(invalid(post('data=%%%!!', { contentType: 'application/x-www-form-urlencoded' })).detail).toMatch(
      /base64/,
    );
    invalid(post('data=%E2%98%83', { query: { compression: 'lz64' } }));
    invalid(post('data=AAAA', { query: { compression: 'lz64' } }));
    expect(invalid(post('{"event": "e",')).detail).toMatch(/^Malformed request data: invalid JSON/);
    invalid(post('hello world'));
    invalid({ method: 'GET', query: {}, body: undefined }, 400, 'no_data');
    invalid(post('data=', { contentType: 'application/x-www-form-urlencoded' }), 400, 'no_data');
  });

  it('non-object events and bad shapes reject the whole request', () => {
    invalid(post('[1, 2]'));
    invalid(post('"text"'));
    invalid(post('{"api_key":"k","batch":{}}'));
    invalid(post('{"api_key":"k","batch":[]}'));
    const ok = { event: 'e', distinct_id: 'd' };
    invalid(post(JSON.stringify([ok, { distinct_id: 'd' }])));
    invalid(post(JSON.stringify([ok, { event: 'e' }])));
    invalid(post(JSON.stringify([ok, { event: 'e', distinct_id: '' }])));
    invalid(post(JSON.stringify([ok, { event: 'e', distinct_id: null, properties: { distinct_id: null } }])));
    invalid(post(JSON.stringify([ok, { event: 7, distinct_id: 'd' }])));
    invalid(post(JSON.stringify([ok, { event: 'e', distinct_id: 'd', properties: [] }])));
    const error = invalid(post(JSON.stringify([ok, { event: '$snapshot' }])));
    expect(error.detail).toContain('(event 1)');
  });

  it('oversized decompression is a 413 (gzip, base64, lz64); unknown encodings a 415', () => {
    const big = JSON.stringify({ event: 'e', distinct_id: 'd', properties: { pad: 'x'.repeat(1_000_000) } });
    invalid(post(gzipSync(big)), 413, 'request_too_large');
    invalid(post(gzipSync(big), { contentEncoding: 'gzip' }), 413, 'request_too_large');
    invalid(post(big), 413, 'request_too_large');
    const lz = LZString.compressToBase64(big.slice(0, 300_000));
    invalid(post(`data=${lz}`, { query: { compression: 'lz64' } }), 413, 'request_too_large');
    invalid(post('{}', { contentEncoding: 'compress' }), 415, 'unsupported_media_type');
  });

  it('an engage body without an event name becomes $identify only on /engage/', () => {
    const body = JSON.stringify({ $set: { a: 1 }, $token: 'phc_e', $distinct_id: 'd' });
    invalid(post(body));
    const decoded = decodeCapture(post(body), { engage: true });
    expect(decoded).toMatchObject({ token: 'phc_e', events: [{ event: '$identify' }] });
  });
});

describe('token lookup', () => {
  const ev = (token?: string) => ({ event: 'e', distinct_id: 'd', properties: token ? { token } : {} });
  const tokenOf = (body: unknown, query: Record<string, string> = {}) =>
    decodeCapture(post(JSON.stringify(body), { query })).token;

  it('body api_key, then body token, then the events, then the query', () => {
    expect(tokenOf({ api_key: 'a', token: 'b', batch: [ev('c')] }, { token: 'q' })).toBe('a');
    expect(tokenOf({ token: 'b', batch: [ev('c')] }, { token: 'q' })).toBe('b');
    expect(tokenOf({ batch: [ev(), ev('c')] }, { token: 'q' })).toBe('c');
    expect(tokenOf({ batch: [ev()] }, { token: 'q' })).toBe('q');
    expect(tokenOf({ batch: [ev()] }, { api_key: 'k' })).toBe('k');
    expect(tokenOf({ batch: [ev()] })).toBeUndefined();
    expect(tokenOf({ ...ev('p'), $token: 't' })).toBe('t');
  });

  it('events that disagree are a 400 unless the body names the project', () => {
    const error = errorOf(() => tokenOf([ev('a'), ev('b')]));
    expect([error.status, error.code]).toEqual([400, 'invalid_payload']);
    expect(tokenOf({ api_key: 'x', batch: [ev('a'), ev('b')] })).toBe('x');
  });
});

describe('normalizeEvent', () => {
  const now = new Date('2024-06-01T12:00:00.000Z');
  const raw = (extra: Partial<RawEvent>): RawEvent => ({ event: 'e', distinct_id: 'd', ...extra });
  const ts = (extra: Partial<RawEvent>, sentAt?: string) =>
    normalizeEvent(raw(extra), { now, sentAt }).timestamp;

  it('corrects client clock skew with sent_at (request-level, event-level, epoch ms)', () => {
    // Client clock 1 hour fast: event 10 s before its send.
    expect(ts({ timestamp: '2024-06-01T12:59:50.000Z' }, '2024-06-01T13:00:00.000Z')).toBe(
      '2024-06-01T11:59:50.000Z',
    );
    expect(ts({ timestamp: '2024-06-01T12:59:50.000Z', sent_at: '2024-06-01T13:00:00.000Z' }, 'junk')).toBe(
      '2024-06-01T11:59:50.000Z',
    );
    expect(ts({ timestamp: '2024-06-01T12:59:50.000Z' }, String(Date.parse('2024-06-01T13:00:00Z')))).toBe(
      '2024-06-01T11:59:50.000Z',
    );
    expect(
      ts(
        { timestamp: '2024-06-01T12:59:50.000Z', properties: { $ignore_sent_at: true } },
        '2024-06-01T13:00:00Z',
      ),
    ).toBe('2024-06-01T12:59:50.000Z');
  });

  it('uses offset, the timestamp alone, or now; clamps the far future', () => {
    expect(ts({ offset: 5000 })).toBe('2024-06-01T11:59:55.000Z');
    expect(ts({ timestamp: '2024-05-01T00:00:00Z', offset: 5000 })).toBe('2024-05-01T00:00:00.000Z');
    expect(ts({ timestamp: '2024-05-01 00:00:00' })).toBe('2024-05-01T00:00:00.000Z');
    expect(ts({})).toBe(now.toISOString());
    expect(ts({ timestamp: 'not a date' })).toBe(now.toISOString());
    expect(ts({ timestamp: '2024-06-02T10:59:00Z' })).toBe('2024-06-02T10:59:00.000Z');
    expect(ts({ timestamp: '2024-06-02T11:01:00Z' })).toBe(now.toISOString());
    expect(ts({ timestamp: '2030-01-01T00:00:00Z' }, '2030-01-01T00:00:10Z')).toBe(
      '2024-06-01T11:59:50.000Z',
    );
    expect(parseTime('+275760-09-13T00:00:00Z')).toBeDefined();
    expect(ts({ timestamp: '+100000-01-01T00:00:00Z' })).toBe(now.toISOString());
  });

  it('with `consume`, reuses the raw properties instead of copying them', () => {
    const properties = { a: 1 };
    expect(normalizeEvent(raw({ properties }), { now }).properties).not.toBe(properties);
    const consumed = normalizeEvent(raw({ properties, $set: { b: 2 } }), {
      now,
      ip: '10.0.0.1',
      consume: true,
    });
    expect(consumed.properties).toBe(properties);
    expect(consumed.properties).toEqual({ a: 1, $set: { b: 2 }, $ip: '10.0.0.1' });
  });

  it('keeps a valid uuid (lower-cased), else generates a v7', () => {
    const given = '0190F5B2-1C3D-7E4F-8A9B-0C1D2E3F4A5B';
    expect(normalizeEvent(raw({ uuid: given }), { now }).uuid).toBe(given.toLowerCase());
    for (const uuid of [undefined, 'nope', 42, '00000000-0000-0000-0000-000000000000']) {
      const made = normalizeEvent(raw({ uuid }), { now }).uuid;
      expect(made).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(Number.parseInt(made.replace('-', '').slice(0, 12), 16)).toBe(now.getTime());
    }
  });

  it('distinct ids, $set/$set_once/$unset lifting, $ip', () => {
    expect(normalizeEvent(raw({ distinct_id: 12 }), { now }).distinctId).toBe('12');
    expect(normalizeEvent({ event: 'e', properties: { distinct_id: 'p' } }, { now }).distinctId).toBe('p');
    expect(normalizeEvent(raw({ distinct_id: 'x'.repeat(300) }), { now }).distinctId).toHaveLength(200);
    const clean = normalizeEvent(
      raw({
        properties: { $set: { a: 1, b: 1 }, $unset: ['x'] },
        $set: { b: 2 },
        $set_once: { c: 3 },
        $unset: ['x', 'y'],
      }),
      { now, ip: '10.0.0.1' },
    );
    expect(clean.properties).toEqual({
      $set: { a: 1, b: 2 },
      $set_once: { c: 3 },
      $unset: ['x', 'y'],
      $ip: '10.0.0.1',
    });
    expect(
      normalizeEvent(raw({ properties: { $ip: '1.1.1.1' } }), { now, ip: '2.2.2.2' }).properties.$ip,
    ).toBe('1.1.1.1');
    const anonymous = normalizeEvent(raw({ properties: { $ip: '1.1.1.1' } }), {
      now,
      ip: '2.2.2.2',
      anonymizeIps: true,
    });
    expect(anonymous.properties).not.toHaveProperty('$ip');
  });

  it('drops __proto__ keys while decoding', () => {
    const decoded = decodeCapture(
      post('{"event":"e","distinct_id":"d","properties":{"__proto__":{"x":1},"a":1}}'),
    );
    const clean = normalizeEvent(decoded.events[0]!, { now });
    expect(clean.properties).toEqual({ a: 1 });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    // Spelled with escapes, in a batch and alone; a value that merely mentions the names is kept.
    const escaped =
      '{"event":"e","distinct_id":"d","properties":{"\\u005f_proto__":{"x":1},"\\u0063onstructor":{"prototype":{"y":1}},"a":"__proto__ constructor"}}';
    for (const body of [escaped, `{"api_key":"tok","batch":[${escaped},${escaped}]}`]) {
      for (const e of decodeCapture(post(body)).events) {
        expect(e.properties).toEqual({ a: '__proto__ constructor' });
        expect(Object.getPrototypeOf(e.properties)).toBe(Object.prototype);
      }
    }
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  // A list up to 256 KiB is parsed at once, a larger one event by event: both give the same.
  it.each([
    ['parsed at once', 10],
    ['parsed event by event', 3_000],
  ])('a batch %s drops __proto__ and constructor keys and refuses a bad event', (_, events) => {
    const event = (i: number) =>
      `{"event":"e","distinct_id":"d${i}","properties":{"__proto__":{"x":1},"constructor":{"prototype":{"y":1}},"pad":"${'p'.repeat(80)}","i":${i}}}`;
    const list = Array.from({ length: events }, (_, i) => event(i));
    const decoded = decodeCapture(post(`{"api_key":"tok","batch":[${list.join(',')}]}`));
    expect(decoded.events).toHaveLength(events);
    decoded.events.forEach((e, i) => {
      expect(e.properties).toEqual({ pad: 'p'.repeat(80), i });
      expect(Object.getPrototypeOf(e.properties)).toBe(Object.prototype);
    });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(({} as Record<string, unknown>).y).toBeUndefined();

    // A bad literal in the last event: the whole request is a 400, nothing of it decoded.
    list[events - 1] = '{"event":"e","distinct_id":"d","properties":{"a":tru}}';
    const error = errorOf(() => decodeCapture(post(`{"api_key":"tok","batch":[${list.join(',')}]}`)));
    expect(error.status).toBe(400);
    expect(error.detail).toMatch(/^Malformed request data: invalid JSON/);
    // An event without a distinct id is named by its index either way.
    list[events - 1] = '{"event":"e","properties":{}}';
    const missing = errorOf(() => decodeCapture(post(`{"api_key":"tok","batch":[${list.join(',')}]}`)));
    expect(missing.detail).toContain(`(event ${events - 1})`);
  });
});

describe('gzip bodies inflated in line or on the thread pool', () => {
  const batch = (events: number, pad: number) =>
    JSON.stringify({
      api_key: 'tok',
      batch: Array.from({ length: events }, (_, i) => ({
        event: 'e',
        distinct_id: `d${i}`,
        properties: { pad: 'x'.repeat(pad) },
      })),
    });
  const input = (json: string): DecodeInput => ({
    method: 'POST',
    contentEncoding: 'gzip',
    query: {},
    body: gzipSync(json),
  });

  it('a small body past the in-line output cap is decoded on the thread pool, within the limit', async () => {
    const json = batch(200, 10_000);
    const body = gzipSync(json);
    expect(body.length).toBeLessThan(INLINE_MAX_INPUT);
    expect(json.length).toBeGreaterThan(INLINE_MAX_OUTPUT);
    const decoded = await decodeCaptureAsync(input(json), { maxDecodedBytes: 4 * 1024 * 1024 });
    expect(decoded.events).toHaveLength(200);
    await expect(
      decodeCaptureAsync(input(json), { maxDecodedBytes: 1.5 * 1024 * 1024 }),
    ).rejects.toMatchObject({
      status: 413,
      code: 'request_too_large',
    });
  });

  it('a limit below the in-line cap is held in line: 413; corrupt gzip: 400', async () => {
    const json = batch(50, 4_000);
    expect(json.length).toBeLessThan(INLINE_MAX_OUTPUT);
    await expect(decodeCaptureAsync(input(json), { maxDecodedBytes: 100 * 1024 })).rejects.toMatchObject({
      status: 413,
      code: 'request_too_large',
    });
    expect((await decodeCaptureAsync(input(json), { maxDecodedBytes: 1024 * 1024 })).events).toHaveLength(50);
    const corrupt = gzipSync(json).subarray(0, 200);
    await expect(
      decodeCaptureAsync({ method: 'POST', contentEncoding: 'gzip', query: {}, body: corrupt }),
    ).rejects.toMatchObject({ status: 400 });
  });
});

describe('uuids', () => {
  it('keeps hyphenated uuids lower-cased and nothing else, as the regular expression it replaced', () => {
    const reference = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    const good = '0190a3c2-7f1e-7a2b-9c3d-4e5f60718293';
    const inputs = [
      good,
      good.toUpperCase(),
      'AbCdEf01-2345-6789-abcd-ef0123456789',
      '00000000-0000-0000-0000-000000000000',
      good.slice(0, 35),
      `${good}0`,
      good.replace(/-/g, ''),
      `${good.slice(0, 8)}_${good.slice(9)}`,
      `${good.slice(0, 7)}-${good.slice(8)}`,
      `${good.slice(0, 35)}g`,
      `${good.slice(0, 35)}\u0130`, // İ, whose lower case is two characters
      `${good.slice(0, 35)}\uff10`, // a full-width digit
      `${good.slice(0, 35)}\u0030`.replace('\u0030', '\u0660'), // an Arabic-Indic digit
    ];
    for (const input of inputs) {
      const expected =
        reference.test(input) && input.toLowerCase() !== '00000000-0000-0000-0000-000000000000'
          ? input.toLowerCase()
          : undefined;
      expect(validUuid(input), input).toBe(expected);
      expect(isLowerUuid(input), input).toBe(/^[0-9a-f-]+$/.test(input) && reference.test(input));
    }
    for (let i = 0; i < 100; i++) expect(isLowerUuid(uuidv7())).toBe(true);
  });
});
