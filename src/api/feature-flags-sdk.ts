import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { decodeJsonBodyAsync, plainJsonBody } from '../capture/decode.js';
import type { DecodeInput } from '../capture/types.js';
import { authorize } from '../domain/access.js';
import type { Authenticator } from '../domain/accounts/authenticate.js';
import type { Deps } from '../domain/deps.js';
import type { FlagCache } from '../domain/flags/cache.js';
import type { CohortLookup } from '../domain/flags/cohorts.js';
import { localEvaluation } from '../domain/flags/local-evaluation.js';
import { teamOfSecretKey } from '../domain/flags/secret-key.js';
import { type FlagEvaluator, parseFlagsRequest } from '../domain/flags/service.js';
import { invalidProjectKey, teamOfProjectToken } from '../domain/ingest/teams.js';
import { PUBLIC, scope } from '../domain/scopes.js';
import { hasActiveSurveys } from '../domain/surveys/public.js';
import { notAuthenticated, validationError } from '../errors.js';
import type { TeamRecord } from '../store/meta/teams.js';
import { installCaptureCors } from './capture-cors.js';
import type { ApiPlugin } from './context.js';
import { flagsJson, shapeOf } from './feature-flags-response.js';
import { remoteConfig } from './remote-config.js';

export interface FlagSdkOptions {
  evaluate: FlagEvaluator;
  flags: FlagCache;
  cohorts: CohortLookup | null;
  resolveTeam: (token: string | undefined) => Promise<TeamRecord>;
}

const MB = 1024 * 1024;
const tags = ['feature flags'];
const Anything = Type.Object({}, { additionalProperties: true });
const read = scope('feature_flag', 'read');

const decodeInput = (request: FastifyRequest): DecodeInput => ({
  method: request.method === 'GET' ? 'GET' : 'POST',
  contentType: request.headers['content-type'],
  contentEncoding: request.headers['content-encoding'] as string | undefined,
  query: request.query as Record<string, string | undefined>,
  body: request.body as Buffer | undefined,
});

const bearer = (request: FastifyRequest) =>
  /^\s*Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];

/**
 * Local evaluation accepts the project's secret key (`phs_…`, it names the project) or a personal
 * key with `feature_flag:read` on the project named by `token` (or the path).
 */
async function localEvaluationTeam(
  deps: Deps,
  authenticator: Authenticator,
  request: FastifyRequest,
  projectId: string | undefined,
): Promise<TeamRecord> {
  const query = request.query as Record<string, string | undefined>;
  const raw = bearer(request) ?? query.personal_api_key;
  if (!raw) throw notAuthenticated();
  if (raw.startsWith('phs_')) {
    const team = await teamOfSecretKey(deps, raw);
    if (query.token && query.token !== team.apiToken) throw invalidProjectKey();
    if (projectId !== undefined && projectId !== '@current' && projectId !== String(team.id))
      throw invalidProjectKey();
    return team;
  }
  const principal =
    request.principal ?? (await authenticator.authenticate(raw, bearer(request) ? 'header' : 'query'));
  let target = projectId;
  if (target === undefined) {
    // Without `token`, the key's current project, as PostHog's `/api/feature_flag/` routes do.
    target = query.token ? String((await teamOfProjectToken(deps.meta, query.token)).id) : '@current';
  }
  const access = await authorize(deps, principal, read, { projectId: target });
  if (!access || !('team' in access)) throw invalidProjectKey();
  return access.team;
}

/**
 * What every PostHog SDK calls besides capture: `/flags` and `/decide` (flag values and, for
 * posthog-js, the project config), the definitions server SDKs poll for local evaluation, and the
 * remote config posthog-js reads at start-up. Bodies are decoded as capture decodes them.
 */
/** `/flags/` bodies: a token, a distinct id and some properties (capture allows far more). */
const FLAGS_BODY_LIMIT = 2 * MB;

export const flagSdkRoutes: ApiPlugin<FlagSdkOptions> = async (app, options) => {
  const { deps, authenticator, evaluate, flags, cohorts, resolveTeam } = options;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  installCaptureCors(app);

  const configOf = async (team: TeamRecord) =>
    remoteConfig(team, {
      hasFeatureFlags: (await flags.get(team.id)).active.length > 0,
      hasActiveSurveys: await hasActiveSurveys(deps, team),
    }) as Record<string, unknown>;

  for (const path of ['flags', 'decide'] as const) {
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const query = request.query as Record<string, string | undefined>;
      // Decoded as capture decodes (gzip, base64, forms), in slices and within capture's depth limit.
      // A small plain JSON body (the usual one) is parsed in line, the same checks applied.
      let decoded: unknown = {};
      if (request.body || query.data) {
        const input = decodeInput(request);
        const limits = { maxDecodedBytes: FLAGS_BODY_LIMIT, maxDepth: app.config.captureMaxJsonDepth };
        decoded = plainJsonBody(input, limits) ?? (await decodeJsonBodyAsync(input, limits));
      }
      if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded))
        throw validationError('The request body must be a JSON object.', null, 'invalid_payload');
      const body = decoded as Record<string, unknown>;
      const token = body.token ?? body.api_key ?? query.token ?? query.api_key;
      const team = await resolveTeam(typeof token === 'string' ? token : undefined);
      const parsed = parseFlagsRequest(body);
      const evaluation =
        body.disable_flags === true
          ? { results: [], errorsWhileComputingFlags: false }
          : await evaluate(team, parsed);
      const withConfig = path === 'decide' || query.config === 'true' || query.config === '1';
      const shape = shapeOf(path, query.v ?? query.version);
      const now = deps.now();
      // Written as text: the generic serializer cost more than evaluating the flags.
      return reply
        .type('application/json; charset=utf-8')
        .send(flagsJson(shape, evaluation, randomUUID(), now, withConfig ? await configOf(team) : null));
    };
    const schema = {
      tags,
      summary: `Feature flag values for one user (${path === 'flags' ? 'current' : 'legacy'} SDKs)`,
      response: { 200: Anything },
    };
    app.post(`/${path}/`, { bodyLimit: 2 * MB, config: { scope: PUBLIC }, schema }, handler);
    app.get(`/${path}/`, { config: { scope: PUBLIC }, schema }, handler);
    app.options(`/${path}/`, { config: { scope: PUBLIC }, schema: { hide: true } }, async (_r, reply) =>
      reply.code(204).send(),
    );
  }

  const sendDefinitions = async (request: FastifyRequest, reply: FastifyReply, team: TeamRecord) => {
    const query = request.query as Record<string, string | undefined>;
    const { body, etag } = await localEvaluation(flags, cohorts, team, query.send_cohorts !== undefined);
    reply.header('ETag', etag).header('Cache-Control', 'no-cache').type('application/json');
    const since = request.headers['if-none-match'];
    if (since && since.replace(/^W\//, '') === etag) return reply.code(304).send();
    return reply.send(body);
  };
  const LocalQuery = Type.Object({
    token: Type.Optional(Type.String({ maxLength: 200 })),
    send_cohorts: Type.Optional(Type.String({ maxLength: 10 })),
    personal_api_key: Type.Optional(Type.String({ maxLength: 200 })),
  });
  const localSchema = (summary: string, extra = {}) => ({
    tags,
    summary,
    querystring: LocalQuery,
    ...extra,
    response: { 200: Anything, 304: Type.Null() },
  });

  app.get(
    '/flags/definitions',
    {
      config: { scope: PUBLIC },
      schema: localSchema('Flag definitions for local evaluation (posthog-node); secret or personal key'),
    },
    async (request, reply) =>
      sendDefinitions(request, reply, await localEvaluationTeam(deps, authenticator, request, undefined)),
  );
  app.get(
    '/api/feature_flag/local_evaluation/',
    {
      config: { scope: read, projectSecret: true },
      schema: localSchema('Flag definitions for local evaluation (older server SDKs)'),
    },
    async (request, reply) =>
      sendDefinitions(request, reply, await localEvaluationTeam(deps, authenticator, request, undefined)),
  );
  for (const prefix of ['/api/environments/:project_id/', '/api/projects/:project_id/']) {
    app.get(
      `${prefix}feature_flags/local_evaluation/`,
      {
        config: { scope: read, projectSecret: true },
        schema: localSchema('Flag definitions for local evaluation', {
          params: Type.Object({ project_id: Type.String() }),
        }),
      },
      async (request, reply) => {
        const projectId = (request.params as { project_id: string }).project_id;
        const team =
          request.access && 'team' in request.access
            ? request.access.team
            : await localEvaluationTeam(deps, authenticator, request, projectId);
        return sendDefinitions(request, reply, team);
      },
    );
  }

  const TokenParams = Type.Object({ token: Type.String({ maxLength: 200 }) });
  app.get(
    '/array/:token/config',
    {
      config: { scope: PUBLIC },
      schema: { tags, summary: 'posthog-js remote config', params: TokenParams, response: { 200: Anything } },
    },
    async (request, reply) => {
      const team = await resolveTeam((request.params as { token: string }).token);
      return reply.header('Cache-Control', 'public, max-age=0, must-revalidate').send(await configOf(team));
    },
  );
  app.get(
    '/array/:token/config.js',
    {
      config: { scope: PUBLIC },
      schema: { tags, summary: 'posthog-js remote config as a script', params: TokenParams },
    },
    async (request, reply) => {
      const team = await resolveTeam((request.params as { token: string }).token);
      return reply
        .type('application/javascript; charset=utf-8')
        .header('Cache-Control', 'public, max-age=0, must-revalidate')
        .send(configScript(team.apiToken, await configOf(team)));
    },
  );
};

/** PostHog's config.js: registers the config where the loader looks for it. */
export function configScript(token: string, config: Record<string, unknown>): string {
  const payload = JSON.stringify({ ...config, siteApps: [] }).replace(/</g, '\\u003c');
  return `(function() {\n  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};\n  window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(token)}] = {\n    config: ${payload},\n    siteApps: []\n  };\n})();\n`;
}
