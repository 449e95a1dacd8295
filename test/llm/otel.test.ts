import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { spansRequest } from '../helpers/otlp-protobuf.js';

/**
 * `/i/v0/ai/otel`: OTLP/HTTP GenAI spans (protobuf as an exporter encodes it, written from
 * trace.proto's field numbers, and OTLP JSON) become `$ai_*` events in their trace, priced.
 */
describe(`OpenTelemetry GenAI spans (${backend})`, () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await h?.close();
  });

  const post = (body: Buffer | string, headers: Record<string, string>) =>
    fetch(`${base}/i/v0/ai/otel`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${h.boot.project_api_key}`, ...headers },
    });
  async function hogql(query: string): Promise<unknown[][]> {
    const res = await h.request('POST', `/api/projects/${h.boot.project_id}/query/`, {
      body: { query: { kind: 'HogQLQuery', query } },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().results;
  }

  const traceId = Buffer.from('0af7651916cd43dd8448eb211c80319c', 'hex');
  const root = Buffer.from('b7ad6b7169203331', 'hex');
  const child = Buffer.from('00f067aa0ba902b7', 'hex');
  const t = BigInt(Date.now() - 10_000) * 1_000_000n;

  it('maps protobuf GenAI spans to a span and a priced generation of one trace', async () => {
    const body = spansRequest(
      [
        ['service.name', { string: 'agent' }],
        ['user.id', { string: 'otel-user' }],
      ],
      [
        { traceId, spanId: root, name: 'invoke_agent', start: t, end: t + 3_000_000_000n },
        {
          traceId,
          spanId: child,
          parentSpanId: root,
          name: 'chat gpt-4o-mini',
          start: t + 100_000_000n,
          end: t + 1_600_000_000n,
          attributes: [
            ['gen_ai.operation.name', { string: 'chat' }],
            ['gen_ai.system', { string: 'openai' }],
            ['gen_ai.request.model', { string: 'gpt-4o-mini' }],
            ['gen_ai.usage.input_tokens', { int: 1000n }],
            ['gen_ai.usage.output_tokens', { int: 500n }],
            ['gen_ai.input.messages', { string: JSON.stringify([{ role: 'user', content: 'hi' }]) }],
            ['app.tenant', { string: 'acme' }],
          ],
        },
      ],
    );
    const res = await post(gzipSync(body), {
      'content-type': 'application/x-protobuf',
      'content-encoding': 'gzip',
    });
    expect(res.status, await res.clone().text()).toBe(200);
    // An exporter's retry of the same spans is stored once.
    expect((await post(body, { 'content-type': 'application/x-protobuf' })).status).toBe(200);
    const rows = await hogql(
      "SELECT event, distinct_id, properties.$ai_span_id, properties.$ai_parent_id, properties.$ai_model, toFloat(properties.$ai_latency), toFloat(properties.$ai_total_cost_usd), properties.app.tenant FROM events WHERE properties.$ai_trace_id = '0af7651916cd43dd8448eb211c80319c' ORDER BY timestamp",
    );
    expect(rows).toHaveLength(2);
    expect(rows[0]?.slice(0, 4)).toEqual(['$ai_span', 'otel-user', 'b7ad6b7169203331', null]);
    expect(rows[1]?.slice(0, 5)).toEqual([
      '$ai_generation',
      'otel-user',
      '00f067aa0ba902b7',
      'b7ad6b7169203331',
      'gpt-4o-mini',
    ]);
    expect(rows[1]?.[5]).toBeCloseTo(1.5, 9);
    // 1000 × 0.15/M + 500 × 0.60/M.
    expect(rows[1]?.[6]).toBeCloseTo(0.00045, 12);
    const trace = await h.request('POST', `/api/projects/${h.boot.project_id}/query/`, {
      body: { query: { kind: 'TraceQuery', traceId: '0af7651916cd43dd8448eb211c80319c' } },
    });
    expect(trace.json().results[0].events).toHaveLength(2);
  });

  it('takes OTLP JSON, keeps errors and unknown providers uncosted, refuses malformed bodies', async () => {
    const json = {
      resourceSpans: [
        {
          resource: { attributes: [] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: '11112222333344445555666677778888',
                  spanId: '1111222233334444',
                  name: 'chat',
                  startTimeUnixNano: String(t),
                  endTimeUnixNano: String(t + 500_000_000n),
                  attributes: [
                    { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
                    { key: 'gen_ai.provider.name', value: { stringValue: 'my-lab' } },
                    { key: 'gen_ai.request.model', value: { stringValue: 'house-model-7' } },
                  ],
                  status: { code: 2, message: 'rate limited' },
                },
              ],
            },
          ],
        },
      ],
    };
    expect((await post(JSON.stringify(json), { 'content-type': 'application/json' })).status).toBe(200);
    const rows = await hogql(
      "SELECT event, properties.$ai_is_error, properties.$ai_error, properties.$ai_total_cost_usd, properties.$process_person_profile FROM events WHERE properties.$ai_trace_id = '11112222333344445555666677778888'",
    );
    expect(rows).toEqual([['$ai_generation', 'true', 'rate limited', null, 'false']]);
    const bad = await post(Buffer.from([0x0a, 0xff, 0x01]), { 'content-type': 'application/x-protobuf' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ type: 'validation_error', code: 'invalid_payload' });
    expect((await post('{"resourceLogs":[]}', { 'content-type': 'application/json' })).status).toBe(400);
    expect(
      (
        await post('{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"zz","spanId":"1"}]}]}]}', {
          'content-type': 'application/json',
        })
      ).status,
    ).toBe(400);
    const anonymous = await fetch(`${base}/i/v0/ai/otel`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(anonymous.status).toBe(401);
  });
});
