import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { logsRequest, nestedValue } from '../helpers/otlp-protobuf.js';

const ORIGIN = 'https://shop.example';
const uuid = (i: number) => `0190a0b0-0000-7000-8000-${String(i).padStart(12, '0')}`;

/** Capture v1, OTLP logs, unknown routes and CORS on every SDK-facing answer, over HTTP. */
describe(`SDK routes: v1, logs, 404s, CORS (${backend})`, () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await h?.close();
  });

  const v1Headers = (token = h.boot.project_api_key) => ({
    origin: ORIGIN,
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    'posthog-sdk-info': 'posthog-go/1.2.3',
    'posthog-attempt': '1',
    'posthog-request-id': 'req-1',
    'posthog-request-timestamp': new Date().toISOString(),
  });
  const v1Event = (i: number, extra: Record<string, unknown> = {}) => ({
    event: 'v1 http',
    uuid: uuid(i),
    distinct_id: `d-${i}`,
    timestamp: new Date().toISOString(),
    properties: { i },
    ...extra,
  });
  const post = (url: string, headers: Record<string, string>, payload: string | Buffer) =>
    h.app.inject({ method: 'POST', url, headers, payload });

  async function hogql(query: string): Promise<unknown[][]> {
    const res = await h.request('POST', `/api/projects/${h.boot.project_id}/query/`, {
      body: { query: { kind: 'HogQLQuery', query } },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().results;
  }

  it('answers v1 with per-event results once written, gzip or not', async () => {
    const body = JSON.stringify({
      created_at: new Date().toISOString(),
      batch: [
        v1Event(1, {
          session_id: 's-1',
          window_id: 'w-1',
          options: { process_person_profile: 'false', cookieless_mode: 0 },
        }),
        v1Event(2),
      ],
    });
    const res = await post('/i/v1/analytics/events', v1Headers(), body);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ results: { [uuid(1)]: { result: 'ok' }, [uuid(2)]: { result: 'ok' } } });
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    const zipped = await post(
      '/i/v1/analytics/events/',
      { ...v1Headers(), 'content-encoding': 'gzip' },
      gzipSync(JSON.stringify({ created_at: new Date().toISOString(), batch: [v1Event(3)] })),
    );
    expect(zipped.json()).toEqual({ results: { [uuid(3)]: { result: 'ok' } } });
    const rows = await hogql(
      "SELECT toString(uuid), properties.$session_id, properties.$window_id, toString(properties.$process_person_profile), toString(properties.$cookieless_mode), properties.$lib, properties.$lib_version FROM events WHERE event = 'v1 http' ORDER BY uuid",
    );
    expect(rows).toEqual([
      [uuid(1), 's-1', 'w-1', 'false', 'false', 'posthog-go', '1.2.3'],
      [uuid(2), null, null, null, null, 'posthog-go', '1.2.3'],
      [uuid(3), null, null, null, null, 'posthog-go', '1.2.3'],
    ]);
  });

  it('refuses v1 requests PostHog refuses, with CORS on each answer', async () => {
    const good = JSON.stringify({ created_at: 'x', batch: [v1Event(9)] });
    const cases: Array<[Record<string, string>, string, number, string]> = [
      [{ ...v1Headers(), authorization: '' }, good, 401, 'missing_api_key'],
      [v1Headers('phc_nope'), good, 401, 'invalid_project_api_key'],
      [{ ...v1Headers(), 'posthog-request-id': '' }, good, 400, 'missing_header'],
      [v1Headers(), JSON.stringify({ batch: [v1Event(9, { uuid: 'nope' })] }), 400, 'invalid_payload'],
      [
        v1Headers(),
        JSON.stringify({ batch: [v1Event(9, { timestamp: undefined })] }),
        400,
        'invalid_payload',
      ],
      [
        v1Headers(),
        JSON.stringify({ batch: [v1Event(9, { options: { process_person_profile: 'maybe' } })] }),
        400,
        'invalid_payload',
      ],
      [v1Headers(), JSON.stringify({ batch: [] }), 400, 'invalid_payload'],
      [v1Headers(), '{not json', 400, 'invalid_payload'],
      [{ ...v1Headers(), 'content-encoding': 'lz4' }, good, 415, 'unsupported_media_type'],
    ];
    for (const [headers, body, status, code] of cases) {
      const res = await post('/i/v1/analytics/events', headers, body);
      expect([res.statusCode, res.json().code], `${body} ${JSON.stringify(headers)}`).toEqual([status, code]);
      expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    }
    const big = await post('/i/v1/analytics/events', v1Headers(), Buffer.alloc(21 * 1024 * 1024, 32));
    expect([big.statusCode, big.json().code]).toEqual([413, 'request_too_large']);
    expect(big.headers['access-control-allow-origin']).toBe(ORIGIN);
  });

  const otlp = (records: object[], service = 'billing') => ({
    resourceLogs: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
        scopeLogs: [{ scope: { name: 'my-scope', version: '1' }, logRecords: records }],
      },
    ],
  });
  const record = (body: string, extra: Record<string, unknown> = {}) => ({
    timeUnixNano: `${Date.now()}123456`,
    severityNumber: 17,
    severityText: 'ERROR',
    body: { stringValue: body },
    traceId: '0AF7651916CD43DD8448EB211C80319C',
    spanId: 'B7AD6B7169203331',
    attributes: [
      { key: 'n', value: { intValue: '7' } },
      { key: 'nested', value: { kvlistValue: { values: [{ key: 'a', value: { boolValue: true } }] } } },
      { key: 'list', value: { arrayValue: { values: [{ doubleValue: 1.5 }, { stringValue: 'x' }] } } },
    ],
    ...extra,
  });

  it('stores OTLP JSON logs (query token or bearer key, gzip), a resent request once', async () => {
    const token = h.boot.project_api_key;
    const body = JSON.stringify(
      otlp([
        record('card declined'),
        record('{"structured":1}', {
          body: { kvlistValue: { values: [{ key: 'k', value: { stringValue: 'v' } }] } },
        }),
      ]),
    );
    const first = await post(
      `/i/v1/logs?token=${token}`,
      { origin: ORIGIN, 'content-type': 'application/json' },
      body,
    );
    expect([first.statusCode, first.json()]).toEqual([200, {}]);
    expect(first.headers['access-control-allow-origin']).toBe(ORIGIN);
    // An SDK that lost the answer sends the same request again: the records are kept once.
    const again = await post(
      '/v1/logs',
      { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      gzipSync(body),
    );
    expect(again.statusCode, again.body).toBe(200);
    const rows = await hogql(
      "SELECT body, level, trace_id, span_id, attributes.n, attributes.nested.a, attributes.list, service_name, resource_attributes['service.name'], instrumentation_scope FROM logs WHERE service_name = 'billing' ORDER BY body",
    );
    expect(rows).toEqual([
      [
        'card declined',
        'error',
        '0af7651916cd43dd8448eb211c80319c',
        'b7ad6b7169203331',
        '7',
        'true',
        '[1.5,"x"]',
        'billing',
        'billing',
        'my-scope',
      ],
      [
        '{"k":"v"}',
        'error',
        '0af7651916cd43dd8448eb211c80319c',
        'b7ad6b7169203331',
        '7',
        'true',
        '[1.5,"x"]',
        'billing',
        'billing',
        'my-scope',
      ],
    ]);
    const [[micros]] = (await hogql(
      "SELECT toUnixTimestamp64Micro(timestamp) % 1000 FROM logs WHERE body = 'card declined'",
    )) as [[number]];
    expect(micros).toBe(123);
  });

  it('stores OTLP protobuf logs as OpenTelemetry exporters send them, gzip or not', async () => {
    const token = h.boot.project_api_key;
    const time = BigInt(Date.now()) * 1_000_000n + 654_321n;
    const body = logsRequest('proto-svc', 'otel-scope', [
      {
        time,
        observed: time + 5n,
        severityNumber: 13,
        severityText: 'WARN',
        body: { string: 'disk almost full' },
        attributes: [
          ['free', { int: -42n }],
          ['big', { int: 9_007_199_254_740_993n }],
          ['ratio', { double: 0.25 }],
          ['ok', { bool: false }],
          ['raw', { bytes: Buffer.from([1, 2, 3]) }],
          ['nested', { kvlist: [['k', { array: [{ string: 'a' }, { int: 1n }] }]] }],
        ],
        flags: 1,
        traceId: Buffer.from('0af7651916cd43dd8448eb211c80319c', 'hex'),
        spanId: Buffer.from('b7ad6b7169203331', 'hex'),
        eventName: 'disk.warning',
      },
      { time, body: { kvlist: [['structured', { bool: true }]] } },
    ]);
    const proto = { origin: ORIGIN, 'content-type': 'application/x-protobuf' };
    const res = await post(`/i/v1/logs?token=${token}`, proto, body);
    expect([res.statusCode, res.body]).toEqual([200, '{}']);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    const zipped = await post(
      `/i/v1/logs?token=${token}`,
      { ...proto, 'content-encoding': 'gzip' },
      gzipSync(body),
    );
    expect(zipped.statusCode).toBe(200);
    const rows = await hogql(
      "SELECT body, level, severity_text, trace_id, span_id, trace_flags, event_name, attributes.free, attributes.big, attributes.ratio, attributes.ok, attributes.raw, attributes.nested.k, instrumentation_scope, toUnixTimestamp64Micro(timestamp) % 1000000, dateDiff('microsecond', timestamp, observed_timestamp) FROM logs WHERE service_name = 'proto-svc' ORDER BY body",
    );
    expect(rows).toEqual([
      [
        'disk almost full',
        'warn',
        'WARN',
        '0af7651916cd43dd8448eb211c80319c',
        'b7ad6b7169203331',
        1,
        'disk.warning',
        '-42',
        '9007199254740993',
        '0.25',
        'false',
        'AQID',
        '["a",1]',
        'otel-scope',
        Number((time / 1000n) % 1_000_000n),
        0,
      ],
      [
        '{"structured":true}',
        'info',
        '',
        '',
        '',
        0,
        '',
        null,
        null,
        null,
        null,
        null,
        null,
        'otel-scope',
        expect.any(Number),
        0,
      ],
    ]);
    const bad: Array<[Buffer, number, string]> = [
      [body.subarray(0, body.length - 3), 400, 'invalid_payload'],
      [Buffer.from([0x0b]), 400, 'invalid_payload'],
      [logsRequest('x', 'y', [{ bodyBytes: nestedValue(300) }]), 400, 'invalid_payload'],
      [
        logsRequest(
          'x',
          'y',
          Array.from({ length: h.config.captureMaxEvents + 1 }, () => ({})),
        ),
        413,
        'too_many_events',
      ],
    ];
    for (const [payload, status, code] of bad) {
      const answer = await post(`/i/v1/logs?token=${token}`, proto, payload);
      expect([answer.statusCode, answer.json().code]).toEqual([status, code]);
      expect(answer.headers['access-control-allow-origin']).toBe(ORIGIN);
    }
  });

  it('refuses bad logs requests with clear errors and CORS', async () => {
    const token = h.boot.project_api_key;
    const json = { origin: ORIGIN, 'content-type': 'application/json' };
    const many = otlp(
      Array.from({ length: h.config.captureMaxEvents + 1 }, () => ({ body: { stringValue: 'x' } })),
    );
    const cases: Array<[string, Record<string, string>, string, number, string]> = [
      ['/i/v1/logs', json, JSON.stringify(otlp([record('a')])), 401, 'missing_api_key'],
      [
        '/i/v1/logs?token=phc_nope',
        json,
        JSON.stringify(otlp([record('a')])),
        401,
        'invalid_project_api_key',
      ],
      [
        `/i/v1/logs?token=${token}`,
        { ...json, 'content-encoding': 'zstd' },
        '{}',
        415,
        'unsupported_media_type',
      ],
      [`/i/v1/logs?token=${token}`, json, JSON.stringify({ logs: [] }), 400, 'invalid_payload'],
      [`/i/v1/logs?token=${token}`, json, '{"resourceLogs": [', 400, 'invalid_payload'],
      [`/i/v1/logs?token=${token}`, json, `${'['.repeat(200)}${']'.repeat(200)}`, 400, 'invalid_payload'],
      [`/i/v1/logs?token=${token}`, json, JSON.stringify(many), 413, 'too_many_events'],
    ];
    for (const [url, headers, body, status, code] of cases) {
      const res = await post(url, headers, body);
      expect([res.statusCode, res.json().code], `${url} ${body.slice(0, 40)}`).toEqual([status, code]);
      expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    }
  });

  it("keeps each project's logs to itself in HogQL", async () => {
    const other = await h.owner('Other org');
    const project = await h.request('GET', `/api/projects/${other.projectId}/`, { key: other.key });
    const res = await post(
      `/i/v1/logs?token=${project.json().api_token}`,
      { 'content-type': 'application/json' },
      JSON.stringify(otlp([record('other tenant')], 'secret-service')),
    );
    expect(res.statusCode).toBe(200);
    expect(await hogql("SELECT count() FROM logs WHERE service_name = 'secret-service'")).toEqual([[0]]);
    const theirs = await h.request('POST', `/api/projects/${other.projectId}/query/`, {
      key: other.key,
      body: { query: { kind: 'HogQLQuery', query: 'SELECT body FROM logs' } },
    });
    expect(theirs.json().results).toEqual([['other tenant']]);
    expect(theirs.json().clickhouse).toMatch(/equals\(logs\.team_id, \d+\)/);
  });

  it('answers an unknown route 404 before reading its body, with CORS outside /api/', async () => {
    // Announce a gigabyte and send only a little: the 404 comes back without the rest.
    const answer = await new Promise<{ status: number; body: string; headers: Record<string, unknown> }>(
      (resolve, reject) => {
        const req = httpRequest(`${base}/i/v9/nothing-here`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': String(1024 ** 3),
            origin: ORIGIN,
          },
        });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (c) => {
            text += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
        });
        req.on('error', reject);
        req.write(Buffer.alloc(64 * 1024, 123)); // `{{{{`: not JSON, were it parsed
      },
    );
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toEqual({
      type: 'invalid_request',
      code: 'not_found',
      detail: 'Not found.',
      attr: null,
    });
    expect(answer.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(answer.headers.connection).toBe('close');

    const json = { 'content-type': 'application/json', origin: ORIGIN };
    const invalid = await post('/i/v0/unknown', json, '{not json');
    expect([invalid.statusCode, invalid.json().code]).toEqual([404, 'not_found']);
    const preflight = await h.app.inject({
      method: 'OPTIONS',
      url: '/ingest/e/',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toBe('content-type');
    // The API keeps its same-origin rules: no CORS on its 404s and 405s, no preflight allowed.
    const api = await post('/api/nothing/', json, '{not json');
    expect([api.statusCode, api.headers['access-control-allow-origin']]).toEqual([404, undefined]);
    const apiPreflight = await h.app.inject({
      method: 'OPTIONS',
      url: '/api/projects/',
      headers: { origin: ORIGIN, 'access-control-request-method': 'DELETE' },
    });
    expect(apiPreflight.statusCode).toBe(405);
    expect(apiPreflight.headers['access-control-allow-origin']).toBeUndefined();
    // A capture path under a method it lacks is a 405 the browser can read.
    const put = await h.app.inject({ method: 'PUT', url: '/e/', headers: json, payload: '{' });
    expect([put.statusCode, put.headers['access-control-allow-origin']]).toEqual([405, ORIGIN]);
  });

  it('puts CORS on every answer of the SDK routes, errors included', async () => {
    const o = { origin: ORIGIN };
    const answers = await Promise.all([
      h.app.inject({
        method: 'POST',
        url: '/e/',
        headers: { ...o, 'content-type': 'text/plain' },
        payload: '{bad',
      }),
      h.app.inject({
        method: 'POST',
        url: '/batch/',
        headers: { ...o, 'content-type': 'application/json' },
        payload: '{"api_key":"phc_no","batch":[{"event":"x","distinct_id":"a"}]}',
      }),
      h.app.inject({
        method: 'POST',
        url: '/s/',
        headers: { ...o, 'content-type': 'application/json' },
        payload: Buffer.alloc(26 * 1024 * 1024, 32),
      }),
      h.app.inject({
        method: 'POST',
        url: '/i/v0/e/',
        headers: { ...o, 'content-encoding': 'zstd-nope' },
        payload: 'x',
      }),
      h.app.inject({
        method: 'POST',
        url: '/flags/?v=2',
        headers: { ...o, 'content-type': 'application/json' },
        payload: '{"token":"phc_no","distinct_id":"a"}',
      }),
      h.app.inject({
        method: 'POST',
        url: '/decide/?v=3',
        headers: { ...o, 'content-type': 'application/json' },
        payload: '[',
      }),
      h.app.inject({ method: 'GET', url: '/array/phc_no/config', headers: o }),
      h.app.inject({ method: 'GET', url: '/static/no-such-file.js', headers: o }),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([400, 401, 413, 415, 401, 400, 401, 404]);
    expect(answers.map((a) => a.headers['access-control-allow-origin'])).toEqual([
      ...Array(7).fill(ORIGIN),
      '*',
    ]);
    for (const a of answers) expect(Object.keys(a.json()).sort()).toEqual(['attr', 'code', 'detail', 'type']);
  });
});

describe(`CORS on capture's 503 (${backend})`, () => {
  it('carries the headers when capture refuses work', async () => {
    // One row may wait; the journal holds it for seconds, so the next request is refused.
    const h = await startHarness({
      INGEST_MAX_PENDING_ROWS: '1',
      CAPTURE_JOURNAL_INSERT_DELAY_MS: '5000',
      CAPTURE_JOURNAL_IDLE_INSERT_DELAY_MS: '5000',
    });
    try {
      const send = () =>
        h.app.inject({
          method: 'POST',
          url: '/e/',
          headers: { origin: ORIGIN, 'content-type': 'application/json' },
          payload: JSON.stringify({ api_key: h.boot.project_api_key, event: 'x', distinct_id: 'a' }),
        });
      expect((await send()).statusCode).toBe(200);
      const refused = await send();
      expect([refused.statusCode, refused.headers['access-control-allow-origin']]).toEqual([503, ORIGIN]);
      expect(refused.headers['retry-after']).toBeDefined();
    } finally {
      await h.close();
    }
  });
});
