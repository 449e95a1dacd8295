import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { type DecodeInput, type DecodeOptions, decodeCaptureAsync } from '../capture/decode.js';
import { normalizeEvent } from '../capture/normalize.js';
import { tokenHint } from '../capture/token-hint.js';
import type { IngestPipeline } from '../domain/ingest/pipeline.js';
import type { CaptureEvent } from '../domain/ingest/rows.js';
import type { createTeamResolver } from '../domain/ingest/teams.js';
import { PUBLIC } from '../domain/scopes.js';
import { createGate, mapInSlices } from '../domain/slices.js';
import { installCaptureCors } from './capture-cors.js';
import { registerCaptureLogs } from './capture-logs.js';
import { registerCaptureV1 } from './capture-v1.js';
import type { ApiPlugin } from './context.js';
import { registerLlmCapture } from './llm-capture.js';

export interface CaptureOptions {
  pipeline: IngestPipeline;
  resolveTeam: ReturnType<typeof createTeamResolver>;
  limits: CaptureLimits;
}

/** Work one request may cost (docs/limits.md); the route's wire limit comes first. */
export interface CaptureLimits {
  maxDecodedBytes: number;
  maxEvents: number;
  maxDepth: number;
  maxEventBytes: number;
  maxRecordingEventBytes: number;
  /** Requests decoded at once; the others wait their turn (docs/limits.md). */
  concurrency: number;
}

const MB = 1024 * 1024;
/** Per-route body limits (before decompression), as the capture issue sets them. */
const ROUTES: Array<{ path: string; bodyLimit: number; engage?: boolean; largeEvents?: boolean }> = [
  { path: '/batch/', bodyLimit: 20 * MB },
  { path: '/e/', bodyLimit: 2 * MB },
  { path: '/capture/', bodyLimit: 2 * MB },
  { path: '/track/', bodyLimit: 2 * MB },
  { path: '/i/v0/e/', bodyLimit: 2 * MB },
  { path: '/engage/', bodyLimit: 2 * MB, engage: true },
  { path: '/s/', bodyLimit: 25 * MB, largeEvents: true },
  // posthog-node's `captureAi` lane (what @posthog/ai 8 sends through): `/batch/`'s wire format,
  // with events up to 8 MiB (full prompts and outputs), which the SDK drops rather than send.
  { path: '/i/v0/ai/batch/', bodyLimit: 25 * MB, largeEvents: true },
];

/** Bodies from this size (as sent) are decoded in their project's line and turns. */
const HINT_MIN_BODY = 16 * 1024;

const Ok = Type.Object({ status: Type.Integer() });
const tags = ['capture'];

/** What the framework-free decoder needs of a request. */
const decodeInput = (request: FastifyRequest): DecodeInput => ({
  method: request.method === 'GET' ? 'GET' : 'POST',
  contentType: request.headers['content-type'],
  contentEncoding: request.headers['content-encoding'] as string | undefined,
  query: request.query as Record<string, string | undefined>,
  body: request.body as Buffer | undefined,
});

/**
 * Where the SDKs send data. No personal key: the project token in the payload names the project.
 * A 200 is sent only once the events are written (group commit), so a retry after any other answer
 * is safe: events keep their uuid and the store counts each uuid once.
 */
export const captureRoutes: ApiPlugin<CaptureOptions> = async (app, { pipeline, resolveTeam, limits }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  installCaptureCors(app);
  const gate = createGate(limits.concurrency);
  /**
   * The project whose line a large request's decoding waits in (docs/isolation.md, "Capture").
   * Small requests (the usual SDK batch: a millisecond or less of decoding, no pause) skip the
   * look, which would cost a gzip one a tenth of its work, and share the line of no project.
   */
  const projectHint = async (input: DecodeInput): Promise<number | undefined> => {
    if ((input.body?.length ?? 0) < HINT_MIN_BODY) return undefined;
    const token = tokenHint(input);
    // Unknown tokens are a 401 from the decoded request's own token, not from a hint.
    return token === undefined
      ? undefined
      : resolveTeam(token).then(
          (t) => t.id,
          () => undefined,
        );
  };

  for (const route of ROUTES) {
    const options: DecodeOptions = {
      maxDecodedBytes: limits.maxDecodedBytes,
      maxEvents: limits.maxEvents,
      maxDepth: limits.maxDepth,
      maxEventBytes: route.largeEvents ? limits.maxRecordingEventBytes : limits.maxEventBytes,
      engage: route.engage ?? false,
    };
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const input = decodeInput(request);
      const key = await projectHint(input);
      // Decoding and normalising are the CPU-heavy part; person work and the write come after.
      const { team, events } = await gate.run(key, async () => {
        const payload = await decodeCaptureAsync(input, options, key);
        const team = await resolveTeam(payload.token);
        const context = {
          now: new Date(),
          sentAt: payload.sentAt,
          ip: request.ip,
          anonymizeIps: team.anonymizeIps,
          consume: true,
        };
        // The decoded events are this request's alone: normalised in place, not copied.
        const events: CaptureEvent[] = await mapInSlices(
          payload.events,
          (raw) => normalizeEvent(raw, context),
          team.id,
        );
        return { team, events };
      });
      await pipeline.ingest(team, events);
      return reply.code(200).send({ status: 1 });
    };
    const routeOptions = {
      bodyLimit: route.bodyLimit,
      config: { scope: PUBLIC },
      schema: { tags, summary: `Capture events (${route.path})`, response: { 200: Ok } },
    };
    app.post(route.path, routeOptions, handler);
    app.get(route.path, routeOptions, handler);
    app.options(route.path, { config: { scope: PUBLIC }, schema: { hide: true } }, async (_r, reply) =>
      reply.code(204).send(),
    );
  }
  // The v1 events route and OpenTelemetry logs: same parser, CORS, decoding slots and sink.
  const schedule = <T>(teamId: number, work: () => Promise<T>) => gate.run(teamId, work);
  registerCaptureV1(app, { pipeline, resolveTeam, limits, schedule });
  registerCaptureLogs(app, { pipeline, resolveTeam, limits, schedule });
  registerLlmCapture(app, { pipeline, resolveTeam, limits, schedule });
};
