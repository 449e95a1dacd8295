import { Type } from 'typebox';
import {
  pinRecording,
  playlistRecording,
  playlistRecordings,
  unpinRecording,
} from '../domain/recordings/playlist-items.js';
import { scope } from '../domain/scopes.js';
import { principalOf, projectAccessOf } from '../server/auth.js';
import { PageQuery, pageOf } from '../server/pagination.js';
import type { ApiPlugin } from './context.js';
import {
  PROJECT_PREFIXES,
  Recording,
  RecordingList,
  recordingList,
  ShortIdParams,
  toRecording,
} from './schemas/recordings.js';

const tags = ['session_recording_playlists'];
const read = scope('session_recording_playlist', 'read');
const write = scope('session_recording_playlist', 'write');
const Success = Type.Object({ success: Type.Boolean() });
const PinParams = Type.Object({
  ...ShortIdParams.properties,
  session_id: Type.String({ minLength: 1, maxLength: 200 }),
});

/**
 * A playlist's recordings. PostHog declares no scope on these actions (so scoped keys cannot use
 * them); Burrow asks for the playlist scopes instead.
 */
export const playlistRecordingRoutes: ApiPlugin = async (app, { deps }) => {
  for (const prefix of PROJECT_PREFIXES) {
    const base = `${prefix}session_recording_playlists/:short_id/recordings/`;

    app.get(
      base,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: "The playlist's recordings: its pins, or what its filters match",
          params: ShortIdParams,
          querystring: PageQuery,
          response: { 200: RecordingList },
        },
      },
      async (request) => {
        const page = pageOf({ limit: request.query.limit ?? 50, offset: request.query.offset });
        const access = projectAccessOf(request);
        return recordingList(
          await playlistRecordings(deps, access, principalOf(request), request.params.short_id, page),
        );
      },
    );

    app.get(
      `${base}:session_id/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'One recording, if the playlist collects it',
          params: PinParams,
          response: { 200: Recording },
        },
      },
      async (request) => {
        const { short_id, session_id } = request.params;
        const access = projectAccessOf(request);
        return toRecording(await playlistRecording(deps, access, principalOf(request), short_id, session_id));
      },
    );

    app.post(
      `${base}:session_id/`,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Pin a recording to a collection',
          params: PinParams,
          response: { 200: Success },
        },
      },
      async (request) => {
        const { short_id, session_id } = request.params;
        await pinRecording(deps, projectAccessOf(request), short_id, session_id);
        return { success: true };
      },
    );

    app.delete(
      `${base}:session_id/`,
      {
        config: { scope: write },
        schema: { tags, summary: 'Unpin a recording', params: PinParams, response: { 200: Success } },
      },
      async (request) => {
        const { short_id, session_id } = request.params;
        await unpinRecording(deps, projectAccessOf(request), short_id, session_id);
        return { success: true };
      },
    );
  }
};
