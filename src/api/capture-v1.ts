import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { type DecodeOptions, decodeCaptureAsync } from '../capture/decode.js';
import { normalizeEvent } from '../capture/normalize.js';
import { fromV1Event, v1Headers, v1Token } from '../capture/v1-batch.js';
import type { IngestPipeline } from '../domain/ingest/pipeline.js';
import type { CaptureEvent } from '../domain/ingest/rows.js';
import type { createTeamResolver } from '../domain/ingest/teams.js';
import { PUBLIC } from '../domain/scopes.js';
import { mapInSlices } from '../domain/slices.js';
import type { CaptureLimits } from './capture.js';

export interface CaptureV1Options {
  pipeline: IngestPipeline;
  resolveTeam: ReturnType<typeof createTeamResolver>;
  limits: CaptureLimits;
  /** Capture's admission of CPU-heavy decoding (the same slots as the v0 routes). */
  /** Runs decoding in the project's line (docs/isolation.md, "Capture"). */
  schedule: <T>(teamId: number, work: () => Promise<T>) => Promise<T>;
}

const MB = 1024 * 1024;
/** As `/batch/` (PostHog's v1 route is its batch route). */
const BODY_LIMIT = 20 * MB;

const Results = Type.Object({
  results: Type.Record(
    Type.String(),
    Type.Object({ result: Type.String(), details: Type.Optional(Type.String()) }),
  ),
});

/**
 * `POST /i/v1/analytics/events`: posthog-node (and posthog-python, posthog-go) with
 * `POSTHOG_CAPTURE_MODE=v1`. Same decoding (encodings, limits), persons and durability as
 * `/batch/`; the answer is PostHog's per-event `{results: {uuid: {result: "ok"}}}`, sent once every
 * event is durable. Anything else is the whole request's error, which the SDK retries (503, 429)
 * or reports. Registered inside capture's plugin, whose body parser (any type, as bytes) and CORS
 * it shares.
 */
export function registerCaptureV1(app: FastifyInstance, options: CaptureV1Options): void {
  const { pipeline, resolveTeam, limits, schedule } = options;
  const decodeOptions: DecodeOptions = {
    maxDecodedBytes: limits.maxDecodedBytes,
    maxEvents: limits.maxEvents,
    maxDepth: limits.maxDepth,
    maxEventBytes: limits.maxEventBytes,
  };
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    // The key and headers first: a caller without them learns nothing from the body.
    const token = v1Token(request.headers.authorization);
    const { sentAt, lib } = v1Headers(request.headers);
    const team = await resolveTeam(token);
    const events = await schedule(team.id, async () => {
      const payload = await decodeCaptureAsync(
        {
          method: 'POST',
          contentType: request.headers['content-type'],
          contentEncoding: request.headers['content-encoding'] as string | undefined,
          query: {},
          body: request.body as Buffer | undefined,
        },
        decodeOptions,
        team.id,
      );
      const context = {
        now: new Date(),
        sentAt,
        ip: request.ip,
        anonymizeIps: team.anonymizeIps,
        consume: true,
      };
      return mapInSlices(
        payload.events,
        (raw, i): CaptureEvent => normalizeEvent(fromV1Event(raw, i, lib), context),
        team.id,
      );
    });
    await pipeline.ingest(team, events);
    const results: Record<string, { result: string }> = {};
    for (const e of events) results[e.uuid] = { result: 'ok' };
    return reply.code(200).send({ results });
  };
  const routeOptions = {
    bodyLimit: BODY_LIMIT,
    config: { scope: PUBLIC },
    schema: {
      tags: ['capture'],
      summary: 'Capture events, v1 wire format (/i/v1/analytics/events)',
      response: { 200: Results },
    },
  };
  app.post('/i/v1/analytics/events', routeOptions, handler);
  app.options(
    '/i/v1/analytics/events',
    { config: { scope: PUBLIC }, schema: { hide: true } },
    async (_r, reply) => reply.code(204).send(),
  );
}
