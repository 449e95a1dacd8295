import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { decompress } from '../capture/bytes.js';
import { decodeJsonBodyAsync } from '../capture/decode.js';
import { invalidPayload } from '../capture/errors.js';
import { normalizeEvent } from '../capture/normalize.js';
import { decodeOtlpTracesProtobufAsync } from '../capture/otlp-protobuf.js';
import { v1Token } from '../capture/v1-batch.js';
import type { IngestPipeline } from '../domain/ingest/pipeline.js';
import type { createTeamResolver } from '../domain/ingest/teams.js';
import { aiEventFromParts } from '../domain/llm-analytics/ai-event.js';
import { formBoundary, parseForm } from '../domain/llm-analytics/multipart.js';
import { spanEvents } from '../domain/llm-analytics/otel-spans.js';
import { PUBLIC } from '../domain/scopes.js';
import type { CaptureLimits } from './capture.js';

export interface LlmCaptureOptions {
  pipeline: IngestPipeline;
  resolveTeam: ReturnType<typeof createTeamResolver>;
  limits: CaptureLimits;
  schedule: <T>(teamId: number, work: () => Promise<T>) => Promise<T>;
}

const MB = 1024 * 1024;
/** PostHog's AI capture lets the body be 110% of its parts' limit (multipart overhead). */
const BODY_LIMIT = 28 * MB;

const Accepted = Type.Object({
  accepted_parts: Type.Array(
    Type.Object({
      name: Type.String(),
      length: Type.Integer(),
      'content-type': Type.Union([Type.String(), Type.Null()]),
      'content-encoding': Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

/**
 * `POST /i/v0/ai`: one AI event per request as `multipart/form-data`, large inputs and outputs in
 * their own parts (docs/llm-analytics.md). Bearer project token, as PostHog's; optional gzip of
 * the whole body. The answer (`accepted_parts`) is sent once the event is durable, as `/batch/`'s.
 */
export function registerLlmCapture(app: FastifyInstance, options: LlmCaptureOptions): void {
  const { pipeline, resolveTeam, limits, schedule } = options;
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const token = v1Token(request.headers.authorization);
    const team = await resolveTeam(token);
    const { event, accepted } = await schedule(team.id, async () => {
      let body = request.body as Buffer | undefined;
      if (!body || body.length === 0) throw invalidPayload('Empty payload');
      const encoding = String(request.headers['content-encoding'] ?? '').toLowerCase();
      if (encoding === 'gzip') body = decompress(body, 'gzip', limits.maxDecodedBytes);
      const boundary = formBoundary(request.headers['content-type']);
      const parsed = aiEventFromParts(parseForm(body, boundary), limits.maxDecodedBytes);
      const context = { now: new Date(), ip: request.ip, anonymizeIps: team.anonymizeIps };
      return {
        event: normalizeEvent(parsed.event, { ...context, consume: true }),
        accepted: parsed.accepted,
      };
    });
    await pipeline.ingest(team, [event]);
    return reply.code(200).send({ accepted_parts: accepted });
  };
  const routeOptions = {
    bodyLimit: BODY_LIMIT,
    config: { scope: PUBLIC },
    schema: {
      tags: ['capture'],
      summary: 'Capture one AI event with its inputs and outputs as parts (/i/v0/ai)',
      response: { 200: Accepted },
    },
  };
  app.post('/i/v0/ai', routeOptions, handler);
  app.options('/i/v0/ai', { config: { scope: PUBLIC }, schema: { hide: true } }, async (_r, reply) =>
    reply.code(204).send(),
  );

  /**
   * `POST /i/v0/ai/otel`: OTLP/HTTP traces (JSON or protobuf, gzip or not) whose spans become
   * `$ai_*` events (otel-spans.ts), with `/batch/`'s persons, cost step and durability; the answer
   * (OTLP's empty `ExportTraceServiceResponse`) is sent once they are written.
   */
  const otel = async (request: FastifyRequest, reply: FastifyReply) => {
    const team = await resolveTeam(v1Token(request.headers.authorization));
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    const protobuf = type === 'application/x-protobuf' || type === 'application/protobuf';
    const events = await schedule(team.id, async () => {
      const input = {
        method: 'POST' as const,
        contentType: request.headers['content-type'],
        contentEncoding: request.headers['content-encoding'] as string | undefined,
        query: {},
        body: request.body as Buffer | undefined,
      };
      const limit = { maxDecodedBytes: limits.maxDecodedBytes, maxDepth: limits.maxDepth };
      const body = protobuf
        ? await decodeOtlpTracesProtobufAsync(input, { ...limit, maxRecords: limits.maxEvents })
        : await decodeJsonBodyAsync(input, limit);
      const context = { now: new Date(), ip: request.ip, anonymizeIps: team.anonymizeIps, consume: true };
      return [...spanEvents(body, limits.maxEvents)].map((raw) => normalizeEvent(raw, context));
    });
    await pipeline.ingest(team, events);
    return reply.code(200).send({});
  };
  app.post(
    '/i/v0/ai/otel',
    {
      bodyLimit: BODY_LIMIT,
      config: { scope: PUBLIC },
      schema: {
        tags: ['capture'],
        summary: 'OpenTelemetry GenAI spans as LLM events (OTLP/HTTP traces, JSON or protobuf)',
        response: { 200: Type.Object({}) },
      },
    },
    otel,
  );
  app.options('/i/v0/ai/otel', { config: { scope: PUBLIC }, schema: { hide: true } }, async (_r, reply) =>
    reply.code(204).send(),
  );
}
