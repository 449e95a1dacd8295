import { Type } from 'typebox';
import { deletionOf, deletionsOf } from '../domain/data-lifecycle/deletions-view.js';
import { scope } from '../domain/scopes.js';
import { projectAccessOf } from '../server/auth.js';
import type { ApiPlugin } from './context.js';
import { DateTime, Nullable, NullableDateTime, ProjectIdParams } from './schemas/common.js';
import { PROJECT_PREFIXES } from './schemas/recordings.js';

const tags = ['persons'];
const read = scope('person', 'read');

const Deletion = Type.Object({
  id: Type.Integer(),
  deletion_type: Type.Literal('person'),
  scope: Type.Union([Type.Literal('events'), Type.Literal('recordings')]),
  status: Type.Union([
    Type.Literal('queued'),
    Type.Literal('running'),
    Type.Literal('done'),
    Type.Literal('failed'),
  ]),
  persons: Type.Integer({ description: 'How many persons the deletion covers' }),
  person_ids: Type.Array(Type.String(), { description: 'The first 100 of them' }),
  progress: Type.Number({ description: 'Share of the steps done, 0 to 1' }),
  steps: Type.Array(
    Type.Object({ table: Type.String(), rows: Nullable(Type.Integer()), done: Type.Boolean() }),
  ),
  rows_deleted: Type.Integer(),
  attempts: Type.Integer(),
  error: Nullable(Type.String()),
  created_at: DateTime,
  started_at: NullableDateTime,
  finished_at: NullableDateTime,
});

/**
 * Burrow's own: the background deletions of persons' events and recordings (what PostHog keeps as
 * AsyncDeletion rows and shows to staff only), with each one's progress.
 */
export const dataDeletionRoutes: ApiPlugin = async (app, { deps }) => {
  for (const prefix of PROJECT_PREFIXES) {
    app.get(
      `${prefix}data_deletions/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: "Background deletions of persons' data, newest first, with their progress",
          params: ProjectIdParams,
          querystring: Type.Object({
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
            offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
          }),
          response: { 200: Type.Object({ count: Type.Integer(), results: Type.Array(Deletion) }) },
        },
      },
      async (request) =>
        deletionsOf(deps, projectAccessOf(request), {
          limit: request.query.limit ?? 100,
          offset: request.query.offset ?? 0,
        }),
    );
    app.get(
      `${prefix}data_deletions/:deletion_id/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'One background deletion with its progress',
          params: Type.Object({ project_id: Type.String(), deletion_id: Type.String({ maxLength: 20 }) }),
          response: { 200: Deletion },
        },
      },
      async (request) => deletionOf(deps, projectAccessOf(request), request.params.deletion_id),
    );
  }
};
