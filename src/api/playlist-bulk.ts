import { Type } from 'typebox';
import { bulkPin, bulkUnpin } from '../domain/recordings/playlist-items.js';
import { scope } from '../domain/scopes.js';
import { projectAccessOf } from '../server/auth.js';
import type { ApiPlugin } from './context.js';
import { PROJECT_PREFIXES, ShortIdParams } from './schemas/recordings.js';

const tags = ['session_recording_playlists'];
const write = scope('session_recording_playlist', 'write');
const BulkBody = Type.Object(
  { session_recording_ids: Type.Optional(Type.Unknown({ description: 'Up to 20 session ids' })) },
  { additionalProperties: false },
);

/** Pinning and unpinning several recordings of a collection at once. */
export const playlistBulkRoutes: ApiPlugin = async (app, { deps }) => {
  for (const prefix of PROJECT_PREFIXES) {
    const base = `${prefix}session_recording_playlists/:short_id/recordings/`;

    app.post(
      `${base}bulk_add/`,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Pin up to 20 recordings',
          params: ShortIdParams,
          body: BulkBody,
          response: {
            200: Type.Object({
              success: Type.Boolean(),
              added_count: Type.Integer(),
              total_requested: Type.Integer(),
            }),
          },
        },
      },
      async (request) => {
        const r = await bulkPin(
          deps,
          projectAccessOf(request),
          request.params.short_id,
          request.body.session_recording_ids,
        );
        return { success: true, added_count: r.added, total_requested: r.requested };
      },
    );

    app.post(
      `${base}bulk_delete/`,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Unpin up to 20 recordings',
          params: ShortIdParams,
          body: BulkBody,
          response: {
            200: Type.Object({
              success: Type.Boolean(),
              deleted_count: Type.Integer(),
              total_requested: Type.Integer(),
            }),
          },
        },
      },
      async (request) => {
        const r = await bulkUnpin(
          deps,
          projectAccessOf(request),
          request.params.short_id,
          request.body.session_recording_ids,
        );
        return { success: true, deleted_count: r.deleted, total_requested: r.requested };
      },
    );
  }
};
