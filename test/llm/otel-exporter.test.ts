import { context, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * The real OpenTelemetry exporter (OTLP/HTTP protobuf, as an instrumented app ships GenAI spans)
 * against `/i/v0/ai/otel`: its spans become `$ai_*` events of one trace, priced.
 */
describe(`OpenTelemetry exporter → /i/v0/ai/otel (${backend})`, () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('stores an agent span and a priced chat generation under one trace', async () => {
    const exporter = new OTLPTraceExporter({
      url: `${base}/i/v0/ai/otel`,
      headers: { authorization: `Bearer ${h.boot.project_api_key}` },
    });
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'agent', 'user.id': 'exporter-user' }),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const tracer = provider.getTracer('burrow-test');
    // The parent is passed explicitly: no context manager is registered in this process.
    const root = tracer.startSpan('invoke_agent');
    const traceId = root.spanContext().traceId;
    const chat = tracer.startSpan(
      'chat gpt-4o-mini',
      {
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.system': 'openai',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.usage.input_tokens': 2000,
          'gen_ai.usage.output_tokens': 1000,
        },
      },
      trace.setSpan(context.active(), root),
    );
    chat.end();
    root.end();
    await provider.forceFlush();
    await provider.shutdown();

    const res = await h.request('POST', `/api/projects/${h.boot.project_id}/query/`, {
      body: {
        query: {
          kind: 'HogQLQuery',
          query: `SELECT event, distinct_id, properties.$ai_model, toFloat(properties.$ai_total_cost_usd) FROM events WHERE properties.$ai_trace_id = '${traceId}' ORDER BY event`,
        },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const rows = res.json().results as unknown[][];
    expect(rows.map((r) => r.slice(0, 3))).toEqual([
      ['$ai_generation', 'exporter-user', 'gpt-4o-mini'],
      ['$ai_span', 'exporter-user', null],
    ]);
    // 2000 × $0.15/M + 1000 × $0.60/M, from OpenAI's published gpt-4o-mini prices.
    expect(rows[0]?.[3]).toBeCloseTo(0.0009, 12);
  });
});
