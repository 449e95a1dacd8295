import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { PlaylistCounter } from '../domain/recordings/counter-loop.js';
import { listProjectPlaylists } from '../domain/recordings/playlist-list.js';
import { viewPlaylists } from '../domain/recordings/playlist-view.js';
import { createPlaylist, getPlaylist, updatePlaylistFields } from '../domain/recordings/playlists.js';
import { scope } from '../domain/scopes.js';
import { principalOf, projectAccessOf } from '../server/auth.js';
import { PageQuery, Paginated, pageOf, paginate } from '../server/pagination.js';
import type { PlaylistRecord } from '../store/meta/playlists.js';
import type { ApiPlugin } from './context.js';
import { ProjectIdParams } from './schemas/common.js';
import {
  Playlist,
  PlaylistCreateBody,
  PlaylistUpdateBody,
  PROJECT_PREFIXES,
  ShortIdParams,
  toPlaylist,
} from './schemas/recordings.js';

const tags = ['session_recording_playlists'];
const read = scope('session_recording_playlist', 'read');
const write = scope('session_recording_playlist', 'write');

const ListQuery = Type.Object({
  ...PageQuery.properties,
  created_by: Type.Optional(Type.Integer({ description: 'Id of the creating user' })),
  user: Type.Optional(Type.String({ description: 'Any value: only playlists the caller created' })),
  short_id: Type.Optional(Type.String()),
  type: Type.Optional(Type.String({ description: '`collection` or `filters`' })),
  pinned: Type.Optional(Type.String({ description: 'Any value: only pinned playlists' })),
  search: Type.Optional(Type.String({ description: 'Part of the name or derived name' })),
  date_from: Type.Optional(Type.String({ description: 'Modified after (`-7d`, a date, a datetime)' })),
  date_to: Type.Optional(Type.String({ description: 'Modified before' })),
  session_recording_id: Type.Optional(Type.String({ description: 'Only playlists pinning it' })),
  order: Type.Optional(Type.String({ description: 'A field, `-` first for descending' })),
});

export const playlistRoutes: ApiPlugin<{ counter: Pick<PlaylistCounter, 'nudge'> }> = async (
  app,
  { deps, counter },
) => {
  const one = async (request: FastifyRequest, p: PlaylistRecord) =>
    toPlaylist((await viewPlaylists(deps, principalOf(request), [p]))[0]!);

  for (const prefix of PROJECT_PREFIXES) {
    const base = `${prefix}session_recording_playlists/`;
    const item = `${base}:short_id/`;

    app.get(
      base,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'Playlists, most recently modified first',
          params: ProjectIdParams,
          querystring: ListQuery,
          response: { 200: Paginated(Playlist) },
        },
      },
      async (request) => {
        const page = pageOf(request.query);
        const principal = principalOf(request);
        const data = await listProjectPlaylists(
          deps,
          projectAccessOf(request),
          principal,
          request.query,
          page,
        );
        const results = (await viewPlaylists(deps, principal, data.results)).map(toPlaylist);
        return paginate(request, page, { count: data.count, results });
      },
    );

    app.post(
      base,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Create a collection or a saved filter',
          params: ProjectIdParams,
          body: PlaylistCreateBody,
          response: { 201: Playlist },
        },
      },
      async (request, reply) => {
        const created = await createPlaylist(
          deps,
          projectAccessOf(request),
          principalOf(request),
          request.body,
        );
        if (created.type === 'filters') counter.nudge();
        return reply.code(201).send(await one(request, created));
      },
    );

    app.get(
      item,
      {
        config: { scope: read },
        schema: { tags, summary: 'One playlist', params: ShortIdParams, response: { 200: Playlist } },
      },
      async (request) =>
        one(request, await getPlaylist(deps, projectAccessOf(request), request.params.short_id)),
    );

    for (const method of ['patch', 'put'] as const) {
      app[method](
        item,
        {
          config: { scope: write },
          schema: {
            tags,
            summary: 'Change a playlist; `deleted: true` deletes it and `deleted: false` restores it',
            params: ShortIdParams,
            body: PlaylistUpdateBody,
            response: { 200: Playlist },
          },
        },
        async (request) => {
          const access = projectAccessOf(request);
          const principal = principalOf(request);
          const result = await updatePlaylistFields(
            deps,
            access,
            principal,
            request.params.short_id,
            request.body,
          );
          if (result.recount) counter.nudge();
          return one(request, result.playlist);
        },
      );
    }

    app.delete(
      item,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Not allowed: delete with `PATCH {"deleted": true}` (405, empty body, as in PostHog)',
          params: ShortIdParams,
          response: { 405: Type.String({ maxLength: 0, description: 'Always; empty body' }) },
        },
      },
      async (_request, reply) => reply.code(405).header('allow', 'GET, PUT, PATCH, HEAD, OPTIONS').send(''),
    );
  }
};
