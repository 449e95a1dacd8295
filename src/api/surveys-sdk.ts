import { Type } from 'typebox';
import type { FlagCache } from '../domain/flags/cache.js';
import { PUBLIC } from '../domain/scopes.js';
import { surveysForSdk } from '../domain/surveys/public.js';
import type { TeamRecord } from '../store/meta/teams.js';
import { installCaptureCors } from './capture-cors.js';
import type { ApiPlugin } from './context.js';

const tags = ['surveys'];
const Anything = Type.Object({}, { additionalProperties: true });
const TokenQuery = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 200 })),
  api_key: Type.Optional(Type.String({ maxLength: 200 })),
});

/**
 * `GET /api/surveys/?token=`: the surveys posthog-js may show, for a project named by its public
 * token. Browsers call it from the customer's site, so it answers (errors too) with capture's CORS.
 */
export const surveySdkRoutes: ApiPlugin<{
  resolveTeam: (token: string | undefined) => Promise<TeamRecord>;
  flags: FlagCache;
}> = async (app, { deps, flags, resolveTeam }) => {
  installCaptureCors(app);
  app.get(
    '/api/surveys/',
    {
      config: { scope: PUBLIC },
      schema: {
        tags,
        summary: 'Launched surveys for posthog-js, by project token',
        querystring: TokenQuery,
        response: { 200: Anything },
      },
    },
    async (request) => {
      const query = request.query as { token?: string; api_key?: string };
      return surveysForSdk({ ...deps, flags }, await resolveTeam(query.token ?? query.api_key));
    },
  );
  app.options('/api/surveys/', { config: { scope: PUBLIC }, schema: { hide: true } }, async (_r, reply) =>
    reply.code(204).send(),
  );
};
