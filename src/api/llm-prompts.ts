import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ProjectAccess } from '../domain/access.js';
import {
  createPrompt,
  deletePrompt,
  getPrompt,
  getPromptByName,
  listPrompts,
  listPromptVersions,
  type PromptView,
  publishPrompt,
} from '../domain/llm-analytics/prompts.js';
import { scope } from '../domain/scopes.js';
import { notFound } from '../errors.js';
import { principalOf, projectAccessOf } from '../server/auth.js';
import type { ApiPlugin } from './context.js';
import { resourceRoutes } from './resource-routes.js';
import { DateTime, ProjectIdParams } from './schemas/common.js';
import { PROJECT_PREFIXES } from './schemas/recordings.js';

const tags = ['llm_prompts'];
const read = scope('llm_prompt', 'read');
const write = scope('llm_prompt', 'write');

const Prompt = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prompt: Type.Unknown(),
  version: Type.Integer(),
  latest_version: Type.Integer(),
  version_count: Type.Integer(),
  is_latest: Type.Boolean(),
  created_at: DateTime,
  updated_at: DateTime,
  deleted: Type.Boolean(),
});

const PromptBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 255 })),
    prompt: Type.Optional(
      Type.Unknown({ description: 'The prompt: text, or JSON (e.g. a list of messages)' }),
    ),
  },
  { additionalProperties: false },
);

const IdParams = Type.Object({ ...ProjectIdParams.properties, id: Type.String({ maxLength: 64 }) });
const NameParams = Type.Object({ ...ProjectIdParams.properties, name: Type.String({ maxLength: 255 }) });
const NameQuery = Type.Object({
  version: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
  /** `@posthog/ai`'s `Prompts` sends the project token beside the personal key. */
  token: Type.Optional(Type.String({ maxLength: 200 })),
});
const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  search: Type.Optional(Type.String({ maxLength: 255 })),
});

const shape = (p: PromptView) => ({
  id: p.id,
  name: p.name,
  prompt: p.prompt,
  version: p.version,
  latest_version: p.latestVersion,
  version_count: p.versionCount,
  is_latest: p.version === p.latestVersion,
  // Versions are immutable: a version's update time is its creation time.
  created_at: p.createdAt,
  updated_at: p.createdAt,
  deleted: p.deleted,
});

/** A `token` that names another project than the path's is a 404, not that project's prompt. */
function checkToken(access: ProjectAccess, token: string | undefined): void {
  if (token !== undefined && token !== access.team.apiToken) throw notFound();
}

/**
 * LLM prompts (docs/llm-analytics.md): PostHog's `llm_prompts` API, versioned by name. Creating
 * makes version 1; PATCH/PUT publishes the next version; DELETE removes every version of the name.
 */
export const llmPromptRoutes: ApiPlugin = async (app, { deps }) => {
  resourceRoutes(app, {
    path: 'llm_prompts/',
    tags,
    read,
    write,
    item: Prompt,
    body: PromptBody,
    params: IdParams,
    list: {
      summary: "The project's prompts, the latest version of each name",
      querystring: ListQuery,
      handler: async (request, page) => {
        const data = await listPrompts(deps, projectAccessOf(request), {
          ...page,
          search: request.query.search,
        });
        return { count: data.count, results: data.results.map(shape) };
      },
    },
    create: {
      summary: 'Create a prompt (version 1 of its name)',
      handler: async (request) =>
        shape(
          await createPrompt(deps, projectAccessOf(request), principalOf(request), {
            name: request.body.name ?? '',
            prompt: request.body.prompt,
          }),
        ),
    },
    retrieve: {
      summary: 'One prompt version',
      handler: async (request) => shape(await getPrompt(deps, projectAccessOf(request), request.params.id)),
    },
    change: {
      summary: "Publish a new version of the prompt's name",
      handler: async (request) =>
        shape(
          await publishPrompt(
            deps,
            projectAccessOf(request),
            principalOf(request),
            request.params.id,
            request.body,
          ),
        ),
    },
    remove: {
      summary: 'Delete the prompt (every version of its name)',
      handler: (request) => deletePrompt(deps, projectAccessOf(request), request.params.id),
    },
  });

  type NameRequest = FastifyRequest<{
    Params: { project_id: string; name: string };
    Querystring: { version?: number; token?: string };
  }>;
  for (const prefix of PROJECT_PREFIXES) {
    app.get(
      `${prefix}llm_prompts/name/:name/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'A prompt by name: the latest version, or `?version=` (what the SDKs read)',
          params: NameParams,
          querystring: NameQuery,
          response: { 200: Prompt },
        },
      },
      async (request: NameRequest) => {
        const access = projectAccessOf(request);
        checkToken(access, request.query.token);
        return shape(await getPromptByName(deps, access, request.params.name, request.query.version));
      },
    );
    app.get(
      `${prefix}llm_prompts/name/:name/versions/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: "Every version of a prompt's name, newest first",
          params: NameParams,
          response: { 200: Type.Object({ results: Type.Array(Prompt) }) },
        },
      },
      async (request: NameRequest) => ({
        results: (await listPromptVersions(deps, projectAccessOf(request), request.params.name)).map(shape),
      }),
    );
  }
};
