import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { throttled } from '../domain/accounts/login-sessions.js';
import type { Deps } from '../domain/deps.js';
import { catalogCache } from '../domain/draft-sql/catalog.js';
import { CURRENT_QUERY_MAX, PROMPT_MAX } from '../domain/draft-sql/errors.js';
import { createLimiter } from '../domain/draft-sql/limiter.js';
import { draftSql } from '../domain/draft-sql/service.js';
import { scope } from '../domain/scopes.js';
import { principalOf, projectAccessOf } from '../server/auth.js';
import { ErrorBody, ProjectIdParams } from './schemas/common.js';

const DraftSqlQuerystring = Type.Object({
  prompt: Type.String({
    description: `What the query should answer, in English (at most ${PROMPT_MAX} characters)`,
  }),
  current_query: Type.Optional(
    Type.String({
      maxLength: CURRENT_QUERY_MAX,
      description: 'The query being edited, for "add …"/"only …" prompts',
    }),
  ),
});

/**
 * `GET …/query/draft_sql/`: a HogQL draft from a short English prompt. Registered by the query
 * routes for each of their prefixes; needs `app.config` (LLM endpoint and the per-user limits).
 */
export const draftSqlRoutes: FastifyPluginAsyncTypebox<{ deps: Deps; prefixes: string[] }> = async (
  app,
  { deps, prefixes },
) => {
  const config = app.config;
  const catalogs = catalogCache(deps.events, deps.now);
  const limiter = createLimiter([
    { limit: config.draftSqlBurstPerMinute, windowMs: 60_000 },
    { limit: config.draftSqlPerDay, windowMs: 86_400_000 },
  ]);

  for (const prefix of prefixes) {
    app.get(
      `${prefix}draft_sql/`,
      {
        config: { scope: scope('query', 'read') },
        schema: {
          tags: ['query'],
          summary: 'Draft a HogQL query from an English prompt',
          description:
            "Uses the project's real event and property names. With LLM_API_URL set, asks that model and " +
            'checks its answer compiles; otherwise (or when the answer is unusable) fills a template. ' +
            '400 `required`/`too_long`/`unclear` (attr `prompt`); 429 per user (burst and daily limits).',
          params: ProjectIdParams,
          querystring: DraftSqlQuerystring,
          response: {
            200: Type.Object({ sql: Type.String() }),
            429: ErrorBody,
            502: ErrorBody,
            503: ErrorBody,
            504: ErrorBody,
          },
        },
        // Before the query string is validated, as DRF throttles run before the view.
        preValidation: async (request) => {
          const verdict = limiter.take(`user:${principalOf(request).user.id}`, deps.now().getTime());
          if (!verdict.allowed) throw throttled(verdict.retryAfterMs);
        },
      },
      async (request) => {
        const team = projectAccessOf(request).team;
        const { sql } = await draftSql(
          {
            team: { id: team.id, timezone: team.timezone, weekStartDay: team.weekStartDay === 1 ? 1 : 0 },
            events: deps.events,
            catalogs,
            llm: config.llm,
            warn: (message, err) => request.log.warn({ err }, message),
          },
          request.query,
        );
        return { sql };
      },
    );
  }
};
