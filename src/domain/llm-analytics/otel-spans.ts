import { createHash } from 'node:crypto';
import { invalidPayload } from '../../capture/errors.js';
import { isObject } from '../../capture/fields.js';
import { keyValues } from '../../capture/otlp-logs.js';
import type { RawEvent } from '../../capture/types.js';

/** `gen_ai.operation.name` values that are generations and embeddings (GenAI semantic conventions). */
const GENERATIONS = new Set(['chat', 'text_completion', 'generate_content', 'completion']);
const EMBEDDINGS = new Set(['embeddings', 'embedding']);

const first = (a: Record<string, unknown>, ...keys: string[]): unknown => {
  for (const k of keys) if (a[k] !== undefined && a[k] !== null && a[k] !== '') return a[k];
  return undefined;
};

/** Message lists arrive as JSON text in string attributes; kept as JSON when they parse. */
const jsonish = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
};

function nanos(v: unknown): bigint | undefined {
  if (typeof v === 'string' && /^\d{1,20}$/.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isFinite(v) && v > 0) return BigInt(Math.round(v));
  return undefined;
}

/** A span's event id from its trace and span ids: an exporter's retry is the same event, stored once. */
function spanUuid(traceId: string, spanId: string): string {
  const h = createHash('sha256').update(`${traceId}:${spanId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((Number.parseInt(h[16] as string, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Attributes read into `$ai_*` properties; the others are kept under their own names. */
const MAPPED = new Set([
  'gen_ai.operation.name',
  'gen_ai.system',
  'gen_ai.provider.name',
  'gen_ai.request.model',
  'gen_ai.response.model',
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.prompt_tokens',
  'gen_ai.usage.output_tokens',
  'gen_ai.usage.completion_tokens',
  'gen_ai.usage.cache_read_input_tokens',
  'gen_ai.usage.cache_creation_input_tokens',
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.prompt',
  'gen_ai.completion',
  'posthog.distinct_id',
]);

/**
 * OTLP spans (`ExportTraceServiceRequest` as JSON, or protobuf decoded to that shape) as `$ai_*`
 * events, following OpenTelemetry's GenAI conventions as PostHog's `/i/v0/ai/otel` does: chat
 * and completion spans become `$ai_generation`, embeddings `$ai_embedding`, every other span
 * `$ai_span`, all in the trace of their trace id with their parent span. The distinct id is the
 * span's (or resource's) `posthog.distinct_id`, else `user.id`; without one the event is
 * personless under the trace id, as `@posthog/ai` sends events without a user.
 */
export function* spanEvents(body: unknown, maxSpans: number): Generator<RawEvent> {
  if (!isObject(body) || !Array.isArray(body.resourceSpans)) {
    throw invalidPayload('Invalid OTLP payload: expected an ExportTraceServiceRequest with resourceSpans');
  }
  let count = 0;
  for (const rs of body.resourceSpans) {
    if (!isObject(rs)) continue;
    const resource = keyValues(isObject(rs.resource) ? rs.resource.attributes : undefined);
    for (const ss of Array.isArray(rs.scopeSpans) ? rs.scopeSpans : []) {
      if (!isObject(ss)) continue;
      for (const span of Array.isArray(ss.spans) ? ss.spans : []) {
        if (!isObject(span)) continue;
        if (++count > maxSpans) throw invalidPayload(`More than ${maxSpans} spans in one request`);
        yield spanEvent(span, resource);
      }
    }
  }
}

function spanEvent(span: Record<string, unknown>, resource: Record<string, unknown>): RawEvent {
  const traceId = typeof span.traceId === 'string' ? span.traceId.toLowerCase() : '';
  const spanId = typeof span.spanId === 'string' ? span.spanId.toLowerCase() : '';
  if (!/^[0-9a-f]{1,64}$/.test(traceId) || !/^[0-9a-f]{1,32}$/.test(spanId)) {
    throw invalidPayload('Invalid OTLP span: traceId and spanId must be hex');
  }
  const a = keyValues(span.attributes);
  const op = String(first(a, 'gen_ai.operation.name') ?? '').toLowerCase();
  const event = GENERATIONS.has(op) ? '$ai_generation' : EMBEDDINGS.has(op) ? '$ai_embedding' : '$ai_span';
  const start = nanos(span.startTimeUnixNano);
  const end = nanos(span.endTimeUnixNano);
  const properties: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(a)) if (!MAPPED.has(k)) properties[k] = v;
  const set = (key: string, value: unknown) => {
    if (value !== undefined) properties[key] = value;
  };
  set('$ai_trace_id', traceId);
  set('$ai_span_id', spanId);
  const parent =
    typeof span.parentSpanId === 'string' && span.parentSpanId !== ''
      ? span.parentSpanId.toLowerCase()
      : undefined;
  set('$ai_parent_id', parent);
  set('$ai_span_name', typeof span.name === 'string' ? span.name : undefined);
  set('$ai_provider', first(a, 'gen_ai.provider.name', 'gen_ai.system'));
  set('$ai_model', first(a, 'gen_ai.response.model', 'gen_ai.request.model'));
  set('$ai_input_tokens', first(a, 'gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens'));
  set('$ai_output_tokens', first(a, 'gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens'));
  set('$ai_cache_read_input_tokens', first(a, 'gen_ai.usage.cache_read_input_tokens'));
  set('$ai_cache_creation_input_tokens', first(a, 'gen_ai.usage.cache_creation_input_tokens'));
  const input = jsonish(first(a, 'gen_ai.input.messages', 'gen_ai.prompt'));
  const output = jsonish(first(a, 'gen_ai.output.messages', 'gen_ai.completion'));
  set(event === '$ai_span' ? '$ai_input_state' : '$ai_input', input);
  set(event === '$ai_span' ? '$ai_output_state' : '$ai_output_choices', output);
  if (start !== undefined && end !== undefined && end >= start) set('$ai_latency', Number(end - start) / 1e9);
  const status = isObject(span.status) ? span.status : {};
  if (Number(status.code) === 2) {
    properties.$ai_is_error = true;
    set('$ai_error', typeof status.message === 'string' && status.message ? status.message : undefined);
  }
  const who = first(a, 'posthog.distinct_id', 'user.id') ?? first(resource, 'posthog.distinct_id', 'user.id');
  if (who === undefined) properties.$process_person_profile = false;
  return {
    event,
    uuid: spanUuid(traceId, spanId),
    distinct_id: who === undefined ? traceId : String(who),
    ...(start !== undefined ? { timestamp: new Date(Number(start / 1_000_000n)).toISOString() } : {}),
    properties,
  };
}
