import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { decodeJsonBodyAsync, missingToken } from '../capture/decode.js';
import { logRows } from '../capture/otlp-logs.js';
import { decodeOtlpLogsProtobufAsync } from '../capture/otlp-protobuf.js';
import type { IngestPipeline } from '../domain/ingest/pipeline.js';
import { chTime } from '../domain/ingest/rows.js';
import type { createTeamResolver } from '../domain/ingest/teams.js';
import { PUBLIC } from '../domain/scopes.js';
import { slicer } from '../domain/slices.js';
import type { LogRow } from '../store/events/rows.js';
import type { CaptureLimits } from './capture.js';

export interface CaptureLogsOptions {
  pipeline: IngestPipeline;
  resolveTeam: ReturnType<typeof createTeamResolver>;
  limits: CaptureLimits;
  /** Capture's admission of CPU-heavy decoding (the same slots as the event routes). */
  /** Runs decoding in the project's line (docs/isolation.md, "Capture"). */
  schedule: <T>(teamId: number, work: () => Promise<T>) => Promise<T>;
}

const MB = 1024 * 1024;
/**
 * posthog-node never sends more than 10 MB of OTLP JSON (its own cap); the decoded body is parsed
 * at once (JSON.parse, tens of milliseconds at this size), so it is held to the same bound.
 */
const BODY_LIMIT = 10 * MB;
const MAX_DECODED_BYTES = 10 * MB;

/** The token as posthog-node sends it (`?token=`) or as OpenTelemetry exporters do (a bearer header). */
function tokenOf(request: FastifyRequest): string {
  const query = request.query as Record<string, string | undefined>;
  const fromQuery = query.token?.trim() || query.api_key?.trim();
  if (fromQuery) return fromQuery;
  const bearer = /^\s*Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  if (bearer) return bearer;
  throw missingToken();
}

/**
 * `POST /i/v1/logs`: OpenTelemetry logs (posthog-node's `captureLog`, OTLP/HTTP exporters), as JSON
 * or protobuf (`application/x-protobuf`), gzip or not. Records go to the `logs` table through the same journal and durability as events;
 * the answer (OTLP's empty `ExportLogsServiceResponse`) is sent once they are durable.
 */
export function registerCaptureLogs(app: FastifyInstance, options: CaptureLogsOptions): void {
  const { pipeline, resolveTeam, limits, schedule } = options;
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const team = await resolveTeam(tokenOf(request));
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    const protobuf = type === 'application/x-protobuf' || type === 'application/protobuf';
    const rows = await schedule(team.id, async () => {
      const input = {
        method: 'POST' as const,
        contentType: request.headers['content-type'],
        contentEncoding: request.headers['content-encoding'] as string | undefined,
        query: {},
        body: request.body as Buffer | undefined,
      };
      const maxDecodedBytes = Math.min(MAX_DECODED_BYTES, limits.maxDecodedBytes);
      const body = protobuf
        ? await decodeOtlpLogsProtobufAsync(input, {
            maxDecodedBytes,
            maxDepth: limits.maxDepth,
            maxRecords: limits.maxEvents,
          })
        : await decodeJsonBodyAsync(input, { maxDecodedBytes, maxDepth: limits.maxDepth });
      const now = chTime(new Date().toISOString());
      const out: LogRow[] = [];
      const pause = slicer();
      for (const row of logRows(body, limits.maxEvents, now)) {
        out.push({ ...row, team_id: team.id });
        const wait = pause();
        if (wait) await wait;
      }
      return out;
    });
    await pipeline.ingestLogs(team, rows);
    return reply.code(200).send({});
  };
  const routeOptions = {
    bodyLimit: BODY_LIMIT,
    config: { scope: PUBLIC },
    schema: {
      tags: ['capture'],
      summary: 'Capture OpenTelemetry logs (OTLP/HTTP, JSON or protobuf)',
      response: { 200: Type.Object({}) },
    },
  };
  // `/v1/logs` too, as PostHog's log capture serves it (OpenTelemetry exporters' default path).
  for (const path of ['/i/v1/logs', '/v1/logs']) {
    app.post(path, routeOptions, handler);
    app.options(path, { config: { scope: PUBLIC }, schema: { hide: true } }, async (_r, reply) =>
      reply.code(204).send(),
    );
  }
}
