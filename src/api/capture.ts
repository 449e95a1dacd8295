import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { type DecodeInput, decodeCapture } from '../capture/decode.js';
import { normalizeEvent } from '../capture/normalize.js';
import type { IngestPipeline } from '../domain/ingest/pipeline.js';
import type { CaptureEvent } from '../domain/ingest/rows.js';
import type { createTeamResolver } from '../domain/ingest/teams.js';
import { PUBLIC } from '../domain/scopes.js';
import { installCaptureCors } from './capture-cors.js';
import type { ApiPlugin } from './context.js';

export interface CaptureOptions {
  pipeline: IngestPipeline;
  resolveTeam: ReturnType<typeof createTeamResolver>;
}

const MB = 1024 * 1024;
/** Per-route body limits (before decompression), as the capture issue sets them. */
const ROUTES: Array<{ path: string; bodyLimit: number; engage?: boolean }> = [
  { path: '/batch/', bodyLimit: 20 * MB },
  { path: '/e/', bodyLimit: 2 * MB },
  { path: '/capture/', bodyLimit: 2 * MB },
  { path: '/track/', bodyLimit: 2 * MB },
  { path: '/i/v0/e/', bodyLimit: 2 * MB },
  { path: '/engage/', bodyLimit: 2 * MB, engage: true },
  { path: '/s/', bodyLimit: 25 * MB },
];
/** Decompressed bodies may be this many times the wire limit (JSON compresses ~10x). */
const DECODED_FACTOR = 10;

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

function decode(request: FastifyRequest, bodyLimit: number, engage: boolean) {
  return decodeCapture(decodeInput(request), { maxDecodedBytes: bodyLimit * DECODED_FACTOR, engage });
}

/**
 * Where the SDKs send data. No personal key: the project token in the payload names the project.
 * A 200 is sent only once the events are written (group commit), so a retry after any other answer
 * is safe: events keep their uuid and the store counts each uuid once.
 */
export const captureRoutes: ApiPlugin<CaptureOptions> = async (app, { pipeline, resolveTeam }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  installCaptureCors(app);

  for (const route of ROUTES) {
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const payload = decode(request, route.bodyLimit, route.engage ?? false);
      const team = await resolveTeam(payload.token);
      const context = {
        now: new Date(),
        sentAt: payload.sentAt,
        ip: request.ip,
        anonymizeIps: team.anonymizeIps,
      };
      const events: CaptureEvent[] = payload.events.map((raw) => {
        const e = normalizeEvent(raw, context);
        return {
          uuid: e.uuid,
          event: e.event,
          distinctId: e.distinctId,
          properties: e.properties,
          timestamp: e.timestamp,
        };
      });
      await pipeline.ingest(team, events);
      return reply.code(200).send({ status: 1 });
    };
    const options = {
      bodyLimit: route.bodyLimit,
      config: { scope: PUBLIC },
      schema: { tags, summary: `Capture events (${route.path})`, response: { 200: Ok } },
    };
    app.post(route.path, options, handler);
    app.get(route.path, options, handler);
    app.options(route.path, { config: { scope: PUBLIC }, schema: { hide: true } }, async (_r, reply) =>
      reply.code(204).send(),
    );
  }
};
