import { Type } from 'typebox';
import { deleteRecording, getRecording, listRecordings } from '../domain/recordings/recordings.js';
import { queryFromParams } from '../domain/recordings/search.js';
import { recordingSnapshots } from '../domain/recordings/snapshots.js';
import { scope } from '../domain/scopes.js';
import { principalOf, projectAccessOf } from '../server/auth.js';
import { PageQuery, pageOf } from '../server/pagination.js';
import type { ApiPlugin } from './context.js';
import { ProjectIdParams } from './schemas/common.js';
import {
  PROJECT_PREFIXES,
  Recording,
  RecordingList,
  recordingList,
  toRecording,
} from './schemas/recordings.js';

const tags = ['session_recordings'];
const read = scope('session_recording', 'read');
const IdParams = Type.Object({
  ...ProjectIdParams.properties,
  id: Type.String({ minLength: 1, maxLength: 200 }),
});
const json = (description: string) => Type.Optional(Type.String({ description: `JSON: ${description}` }));
const ListQuery = Type.Object({
  ...PageQuery.properties,
  date_from: Type.Optional(Type.String({ description: 'Default `-3d`; `all`, relative or absolute' })),
  date_to: Type.Optional(Type.String()),
  events: json('event filters'),
  actions: json('action filters'),
  properties: json('event and person property filters'),
  console_log_filters: json('console level filters'),
  having_predicates: json('duration and snapshot source filters'),
  filter_group: json('a universal filter group, as playlists store it'),
  duration: json('duration filters, as playlists store them'),
  operand: Type.Optional(Type.String({ description: '`AND` (default) or `OR`' })),
  filter_test_accounts: json('true to apply the project test account filters'),
  session_ids: json('only these recordings'),
  distinct_ids: json('only recordings of these distinct ids'),
  person_uuid: Type.Optional(Type.String()),
  order: Type.Optional(Type.String({ description: 'start_time (default), duration, click_count, …' })),
  order_direction: Type.Optional(Type.String({ description: 'DESC (default) or ASC' })),
});
const Sources = Type.Object({
  sources: Type.Array(
    Type.Object({
      source: Type.String(),
      start_timestamp: Type.String({ format: 'date-time' }),
      end_timestamp: Type.String({ format: 'date-time' }),
      blob_key: Type.String(),
    }),
  ),
});

export const recordingRoutes: ApiPlugin = async (app, { deps }) => {
  for (const prefix of PROJECT_PREFIXES) {
    const base = `${prefix}session_recordings/`;

    app.get(
      base,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'Recordings matching filters (list query parameters are JSON, as PostHog sends them)',
          params: ProjectIdParams,
          querystring: ListQuery,
          response: { 200: RecordingList },
        },
      },
      async (request) => {
        const page = pageOf({ limit: request.query.limit ?? 50, offset: request.query.offset });
        const query = queryFromParams(request.query);
        return recordingList(
          await listRecordings(deps, projectAccessOf(request), principalOf(request), query, page),
        );
      },
    );

    app.get(
      `${base}:id/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'Metadata of one recording; `save_view` marks it watched by the caller',
          params: IdParams,
          querystring: Type.Object({ save_view: Type.Optional(Type.String()) }),
          response: { 200: Recording },
        },
      },
      async (request) => {
        const access = projectAccessOf(request);
        const saveView = request.query.save_view !== undefined;
        return toRecording(
          await getRecording(deps, access, principalOf(request), request.params.id, saveView),
        );
      },
    );

    app.delete(
      `${base}:id/`,
      {
        config: { scope: scope('session_recording', 'write') },
        schema: {
          tags,
          summary: 'Delete a recording and its data',
          params: IdParams,
          response: { 204: Type.Null() },
        },
      },
      async (request, reply) => {
        await deleteRecording(deps, projectAccessOf(request), request.params.id);
        return reply.code(204).send(null);
      },
    );

    app.get(
      `${base}:id/snapshots/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary:
            'Without `source`: the blob_v2 blocks of rrweb data; with `source=blob_v2&start_blob_key=i&end_blob_key=j`: those blocks as JSONL `[window_id, event]`',
          params: IdParams,
          querystring: Type.Object({
            source: Type.Optional(Type.String({ maxLength: 20 })),
            blob_key: Type.Optional(Type.String({ maxLength: 200 })),
            start_blob_key: Type.Optional(Type.String({ maxLength: 20 })),
            end_blob_key: Type.Optional(Type.String({ maxLength: 20 })),
            decompress: Type.Optional(
              Type.String({
                maxLength: 10,
                description: 'Default true; false answers length-prefixed Snappy blocks',
              }),
            ),
          }),
          response: {
            200: Type.Union([
              Sources,
              Type.String({ description: 'application/jsonl, or application/octet-stream' }),
            ]),
          },
        },
      },
      async (request, reply) => {
        const answer = await recordingSnapshots(
          deps,
          projectAccessOf(request),
          request.params.id,
          request.query,
          principalOf(request).key !== null,
        );
        if (answer.kind === 'sources') return { sources: answer.sources };
        reply.header('content-disposition', 'inline');
        // A Buffer skips the serializer: these bodies are not one JSON document.
        if (answer.kind === 'blob') {
          return reply.type('application/json').send(Buffer.from(answer.body) as unknown as string);
        }
        reply.header('cache-control', answer.closed ? 'private, max-age=3600' : 'private, no-cache');
        const type = answer.kind === 'jsonl' ? 'application/jsonl' : 'application/octet-stream';
        return reply.type(type).send(answer.body as unknown as string);
      },
    );
  }
};
