import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { findGroup, listGroups, listGroupTypes, updateGroupTypeMetadata } from '../domain/groups/groups.js';
import { scope } from '../domain/scopes.js';
import { projectAccessOf } from '../server/auth.js';
import type { ApiPlugin } from './context.js';
import { Nullable, ProjectIdParams } from './schemas/common.js';
import { PROJECT_PREFIXES } from './schemas/recordings.js';

const tags = ['groups'];
const read = { scope: scope('group', 'read') };
const write = { scope: scope('group', 'write') };

const GroupType = Type.Object({
  group_type: Type.String(),
  group_type_index: Type.Integer(),
  name_singular: Nullable(Type.String()),
  name_plural: Nullable(Type.String()),
});

const Group = Type.Object({
  group_type_index: Type.Integer(),
  group_key: Type.String(),
  group_properties: Type.Record(Type.String(), Type.Unknown()),
  created_at: Type.String(),
});

function pageUrl(request: FastifyRequest, limit: number, offset: number): string {
  const url = new URL(request.url, `${request.protocol}://${request.host}`);
  url.searchParams.set('limit', String(limit));
  url.searchParams.set('offset', String(offset));
  return url.toString();
}

export const groupRoutes: ApiPlugin = async (app, { deps }) => {
  for (const prefix of PROJECT_PREFIXES) {
    app.get(
      `${prefix}groups_types/`,
      {
        config: read,
        schema: {
          tags,
          summary: 'Group types of the project',
          params: ProjectIdParams,
          response: { 200: Type.Array(GroupType) },
        },
      },
      async (request) => listGroupTypes(deps, projectAccessOf(request)),
    );
    app.patch(
      `${prefix}groups_types/update_metadata/`,
      {
        config: write,
        schema: {
          tags,
          summary: 'Set display names of group types',
          params: ProjectIdParams,
          body: Type.Array(
            Type.Object({
              group_type_index: Type.Integer({ minimum: 0, maximum: 4 }),
              name_singular: Type.Optional(Nullable(Type.String({ maxLength: 400 }))),
              name_plural: Type.Optional(Nullable(Type.String({ maxLength: 400 }))),
            }),
            { maxItems: 5 },
          ),
          response: { 200: Type.Array(GroupType) },
        },
      },
      async (request) => updateGroupTypeMetadata(deps, projectAccessOf(request), request.body),
    );
    app.get(
      `${prefix}groups/`,
      {
        config: read,
        schema: {
          tags,
          summary: 'Groups of one type, newest first',
          params: ProjectIdParams,
          querystring: Type.Object({
            group_type_index: Type.Optional(Type.Integer()),
            search: Type.Optional(Type.String()),
            properties: Type.Optional(Type.String()),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
            offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
          }),
          response: {
            200: Type.Object({
              next: Nullable(Type.String()),
              previous: Nullable(Type.String()),
              results: Type.Array(Group),
            }),
          },
        },
      },
      async (request) => {
        const limit = request.query.limit ?? 100;
        const offset = request.query.offset ?? 0;
        const page = await listGroups(deps, projectAccessOf(request), request.query, { limit, offset });
        return {
          next: page.hasMore ? pageUrl(request, limit, offset + limit) : null,
          previous: offset > 0 ? pageUrl(request, limit, Math.max(0, offset - limit)) : null,
          results: page.results,
        };
      },
    );
    app.get(
      `${prefix}groups/find/`,
      {
        config: read,
        schema: {
          tags,
          summary: 'One group by type index and key',
          params: ProjectIdParams,
          querystring: Type.Object({
            group_type_index: Type.Optional(Type.Integer()),
            group_key: Type.Optional(Type.String({ maxLength: 1000 })),
          }),
          response: { 200: Group },
        },
      },
      async (request) => findGroup(deps, projectAccessOf(request), request.query),
    );
  }
};
