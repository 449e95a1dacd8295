import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import {
  createRelease,
  finishUploads,
  getSet,
  listSets,
  MAX_SYMBOL_SET_BYTES,
  MAX_SYMBOL_SETS_PER_CALL,
  readSetBytes,
  receiveUpload,
  releaseByHash,
  releaseById,
  releases,
  removeSet,
  startUploads,
} from '../domain/error-tracking/symbol-sets.js';
import type { SymbolStorage } from '../domain/error-tracking/symbol-storage.js';
import { formBoundary, parseForm } from '../domain/llm-analytics/multipart.js';
import { PUBLIC, scope } from '../domain/scopes.js';
import { ApiError, validationError } from '../errors.js';
import { projectAccessOf } from '../server/auth.js';
import { PageQuery, Paginated, pageOf, paginate } from '../server/pagination.js';
import type { ReleaseRecord, SymbolSetRecord } from '../store/meta/error-tracking.js';
import type { ApiPlugin } from './context.js';
import { DateTime, Nullable, ProjectIdParams } from './schemas/common.js';
import { PROJECT_PREFIXES } from './schemas/recordings.js';

const tags = ['error_tracking'];
/**
 * The upload target, outside /api/ as an S3 presigned POST is outside PostHog's API: no key, the
 * one-time token of the start call in the form authorises.
 */
const UPLOAD_PREFIX = '/uploads/error_tracking/symbol_sets/';
const read = scope('error_tracking', 'read');
const write = scope('error_tracking', 'write');

const SymbolSet = Type.Object({
  id: Type.String(),
  ref: Type.String(),
  team_id: Type.Integer(),
  created_at: DateTime,
  storage_ptr: Nullable(Type.String()),
  failure_reason: Nullable(Type.String()),
  release: Nullable(Type.Object({ id: Type.String() })),
});
const Release = Type.Object({
  id: Type.String(),
  hash_id: Type.String(),
  team_id: Type.Integer(),
  created_at: DateTime,
  metadata: Type.Unknown(),
  version: Type.String(),
  project: Type.String(),
});
const IdParams = Type.Object({ ...ProjectIdParams.properties, id: Type.String({ maxLength: 64 }) });
const HashParams = Type.Object({ ...ProjectIdParams.properties, hash: Type.String({ maxLength: 256 }) });
const StartBody = Type.Object({
  symbol_sets: Type.Array(
    Type.Object({
      chunk_id: Type.String({ minLength: 1, maxLength: 256 }),
      release_id: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
      content_hash: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
    }),
    { maxItems: MAX_SYMBOL_SETS_PER_CALL },
  ),
  force: Type.Optional(Type.Boolean()),
  skip_on_conflict: Type.Optional(Type.Boolean()),
});
const StartAnswer = Type.Object({
  id_map: Type.Record(
    Type.String(),
    Type.Object({
      symbol_set_id: Type.String(),
      presigned_url: Type.Object({ url: Type.String(), fields: Type.Record(Type.String(), Type.String()) }),
    }),
  ),
});
const FinishBody = Type.Object({
  content_hashes: Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 256 })),
});
const ReleaseBody = Type.Object({
  hash_id: Type.String({ minLength: 1, maxLength: 256 }),
  version: Type.String({ minLength: 1, maxLength: 1000 }),
  project: Type.String({ minLength: 1, maxLength: 1000 }),
  metadata: Type.Optional(Type.Unknown()),
});
const ListQuery = Type.Object({
  ...PageQuery.properties,
  ref: Type.Optional(Type.String({ maxLength: 256 })),
});

const shapeSet = (s: SymbolSetRecord) => ({
  id: s.id,
  ref: s.ref,
  team_id: s.teamId,
  created_at: s.createdAt,
  // The one-time upload token never leaves the server.
  storage_ptr: s.storagePtr?.startsWith('pending:') ? null : s.storagePtr,
  failure_reason: s.failureReason,
  release: s.releaseId ? { id: s.releaseId } : null,
});
const shapeRelease = (r: ReleaseRecord) => ({
  id: r.id,
  hash_id: r.hashId,
  team_id: r.teamId,
  created_at: r.createdAt,
  metadata: r.metadata,
  version: r.version,
  project: r.project,
});

type Req<P, B = unknown, Q = unknown> = FastifyRequest<{ Params: P; Body: B; Querystring: Q }>;

/**
 * Symbol sets and releases as `posthog-cli sourcemap upload` uses them (docs/error-tracking.md):
 * the CLI asks where to upload (`bulk_start_upload`), POSTs each set as a multipart form to the
 * URL it got (here, this server), then confirms (`bulk_finish_upload`).
 */
export const errorTrackingSymbolRoutes: ApiPlugin = async (app, { deps }) => {
  // Decorated by the server: the data directory, or the object storage bucket when configured.
  const storage = (app as unknown as { symbolStorage: SymbolStorage }).symbolStorage;
  const routes = app as unknown as FastifyInstance;
  for (const prefix of PROJECT_PREFIXES) {
    const base = `${prefix}error_tracking/symbol_sets/`;
    routes.post(
      `${base}bulk_start_upload`,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Register symbol sets by chunk id; answers where to upload each',
          params: ProjectIdParams,
          body: StartBody,
          response: { 200: StartAnswer },
        },
      },
      async (request: Req<{ project_id: string }, Static<typeof StartBody>>) => {
        const origin = `${request.protocol}://${request.host}`;
        const access = projectAccessOf(request);
        return startUploads(
          deps,
          access,
          request.body,
          storage,
          (id) => `${origin}${UPLOAD_PREFIX}${access.team.id}/${id}/`,
        );
      },
    );
    routes.post(
      `${base}bulk_finish_upload`,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Confirm uploaded symbol sets (each is checked readable)',
          params: ProjectIdParams,
          body: FinishBody,
          response: { 201: Type.Object({ success: Type.Boolean() }) },
        },
      },
      async (request: Req<{ project_id: string }, Static<typeof FinishBody>>, reply) => {
        await finishUploads(deps, storage, projectAccessOf(request), request.body.content_hashes);
        return reply.code(201).send({ success: true });
      },
    );
    routes.get(
      base,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: "The project's symbol sets (`ref`: by chunk id)",
          params: ProjectIdParams,
          querystring: ListQuery,
          response: { 200: Paginated(SymbolSet) },
        },
      },
      async (request: Req<{ project_id: string }, unknown, Static<typeof ListQuery>>) => {
        const page = pageOf(request.query);
        const data = await listSets(deps, projectAccessOf(request), request.query.ref, page);
        return paginate(request, page, { count: data.count, results: data.results.map(shapeSet) });
      },
    );
    routes.get(
      `${base}:id/`,
      {
        config: { scope: read },
        schema: { tags, summary: 'One symbol set', params: IdParams, response: { 200: SymbolSet } },
      },
      async (request: Req<Static<typeof IdParams>>) =>
        shapeSet(await getSet(deps, projectAccessOf(request), request.params.id)),
    );
    routes.delete(
      `${base}:id/`,
      { config: { scope: write }, schema: { tags, summary: 'Delete a symbol set', params: IdParams } },
      async (request: Req<Static<typeof IdParams>>, reply) => {
        await removeSet(deps, storage, projectAccessOf(request), request.params.id);
        return reply.code(204).send();
      },
    );
    routes.get(
      `${base}:id/download/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'Where to download the symbol set (a URL on this server)',
          params: IdParams,
          response: { 200: Type.Object({ url: Type.String() }) },
        },
      },
      async (request: Req<Static<typeof IdParams>>) => {
        const access = projectAccessOf(request);
        const set = await getSet(deps, access, request.params.id);
        const origin = `${request.protocol}://${request.host}`;
        return {
          url: `${origin}/api/projects/${access.team.id}/error_tracking/symbol_sets/${set.id}/content/`,
        };
      },
    );
    routes.get(
      `${base}:id/content/`,
      { config: { scope: read }, schema: { tags, summary: "The symbol set's bytes", params: IdParams } },
      async (request: Req<Static<typeof IdParams>>, reply) => {
        const set = await getSet(deps, projectAccessOf(request), request.params.id);
        return reply.type('application/octet-stream').send(await readSetBytes(storage, set));
      },
    );

    const rel = `${prefix}error_tracking/releases`;
    routes.post(
      rel,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Create a release',
          params: ProjectIdParams,
          body: ReleaseBody,
          response: { 201: Release },
        },
      },
      async (request: Req<{ project_id: string }, Static<typeof ReleaseBody>>, reply) =>
        reply.code(201).send(shapeRelease(await createRelease(deps, projectAccessOf(request), request.body))),
    );
    routes.get(
      rel,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: "The project's releases",
          params: ProjectIdParams,
          querystring: PageQuery,
          response: { 200: Paginated(Release) },
        },
      },
      async (request: Req<{ project_id: string }, unknown, { limit?: number; offset?: number }>) => {
        const page = pageOf(request.query);
        const data = await releases(deps, projectAccessOf(request), page);
        return paginate(request, page, { count: data.count, results: data.results.map(shapeRelease) });
      },
    );
    routes.get(
      `${rel}/hash/:hash`,
      {
        config: { scope: read },
        schema: { tags, summary: 'A release by its hash id', params: HashParams, response: { 200: Release } },
      },
      async (request: Req<Static<typeof HashParams>>) =>
        shapeRelease(await releaseByHash(deps, projectAccessOf(request), request.params.hash)),
    );
    routes.get(
      `${rel}/:id/`,
      {
        config: { scope: read },
        schema: { tags, summary: 'One release', params: IdParams, response: { 200: Release } },
      },
      async (request: Req<Static<typeof IdParams>>) =>
        shapeRelease(await releaseById(deps, projectAccessOf(request), request.params.id)),
    );
  }
  await app.register(uploadTarget(deps, storage));
};

/** The presigned-POST stand-in: public (the one-time token in the form authorises), multipart. */
const uploadTarget =
  (deps: Parameters<ApiPlugin>[1]['deps'], storage: SymbolStorage): FastifyPluginAsync =>
  async (app) => {
    app.addContentTypeParser(
      /^multipart\/form-data/i,
      { parseAs: 'buffer', bodyLimit: MAX_SYMBOL_SET_BYTES + 1024 * 1024 },
      (_r, body, done) => done(null, body),
    );
    app.post(
      `${UPLOAD_PREFIX}:project_id/:id/`,
      {
        bodyLimit: MAX_SYMBOL_SET_BYTES + 1024 * 1024,
        config: { scope: PUBLIC },
        schema: {
          tags,
          summary: 'Upload target of bulk_start_upload (multipart: its fields, then `file`)',
          params: IdParams,
        },
      },
      async (request, reply) => {
        const body = request.body;
        if (!Buffer.isBuffer(body)) {
          throw new ApiError(
            415,
            'invalid_request',
            'unsupported_media_type',
            'Send the symbol set as multipart/form-data.',
          );
        }
        const parts = parseForm(body, formBoundary(request.headers['content-type']));
        const token = parts.find((p) => p.name === 'token')?.data.toString('utf8');
        const file = parts.find((p) => p.name === 'file');
        if (!file) throw validationError('No `file` part.', 'file', 'required');
        const { project_id, id } = request.params as { project_id: string; id: string };
        const teamId = Number(project_id);
        if (!Number.isInteger(teamId)) throw validationError('Invalid project id.');
        await receiveUpload(deps, storage, teamId, id, token, file.data);
        return reply.code(204).send();
      },
    );
  };
