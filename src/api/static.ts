import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { PUBLIC } from '../domain/scopes.js';
import { notFound } from '../errors.js';
import type { TeamRecord } from '../store/meta/teams.js';
import type { ApiPlugin } from './context.js';
import { configScript } from './feature-flags-sdk.js';
import { type RemoteConfigState, remoteConfig } from './remote-config.js';

const require = createRequire(import.meta.url);
/** posthog-js's own build output, the version the lockfile pins. */
const DIST = dirname(require.resolve('posthog-js'));
const VERSION = (JSON.parse(readFileSync(join(DIST, '..', 'package.json'), 'utf8')) as { version: string })
  .version;

interface Asset {
  body: Buffer;
  etag: string;
  type: string;
}

/**
 * The files that may be served: the bundles in posthog-js's `dist` folder, listed once. A request
 * names a file from this list or gets a 404, so no path can reach anything else.
 */
const NAMES = new Set(readdirSync(DIST).filter((n) => /^[A-Za-z0-9._-]+\.js(\.map)?$/.test(n)));
const cache = new Map<string, Asset>();

function asset(name: string): Asset {
  if (!NAMES.has(name)) throw notFound();
  let found = cache.get(name);
  if (!found) {
    const body = readFileSync(join(DIST, name));
    found = {
      body,
      etag: `"${createHash('sha1').update(body).digest('hex').slice(0, 27)}"`,
      type: name.endsWith('.map')
        ? 'application/json; charset=utf-8'
        : 'application/javascript; charset=utf-8',
    };
    cache.set(name, found);
  }
  return found;
}

/** Unversioned paths may change with an upgrade, so caches revalidate after an hour; versioned ones never change. */
function send(request: FastifyRequest, reply: FastifyReply, a: Asset, immutable: boolean) {
  reply
    .type(a.type)
    .header('ETag', a.etag)
    .header('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=3600')
    .header('Access-Control-Allow-Origin', '*')
    .header('X-Content-Type-Options', 'nosniff');
  if (request.headers['if-none-match'] === a.etag) return reply.code(304).send();
  return reply.send(a.body);
}

const File = Type.Object({ file: Type.String({ maxLength: 200 }) });

/**
 * posthog-js served from Burrow: the HTML snippet loads `/static/array.js` from `api_host`, and the
 * SDK lazy-loads `/static/recorder.js`, `surveys.js`, `exception-autocapture.js`, ... from the same
 * host. `/array/{token}/array.js` is the bundle with the project's config prepended, as PostHog's.
 */
export const staticRoutes: ApiPlugin<{
  resolveTeam: (token: string | undefined) => Promise<TeamRecord>;
  configState: (team: TeamRecord) => Promise<RemoteConfigState>;
}> = async (app, { resolveTeam, configState }) => {
  const schema = (summary: string, params: TSchema = File) => ({ tags: ['static'], summary, params });
  // Scripts carry no credentials: `*` on every answer, a 404 or a 401 for an unknown token too.
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('Access-Control-Allow-Origin', '*');
    done();
  });
  app.get(
    '/static/:file',
    { config: { scope: PUBLIC }, schema: schema('A posthog-js bundle') },
    async (request, reply) => send(request, reply, asset((request.params as { file: string }).file), false),
  );
  app.get(
    '/static/:version/:file',
    {
      config: { scope: PUBLIC },
      schema: schema(
        'A posthog-js bundle of a given version (the installed one only)',
        Type.Object({ version: Type.String({ maxLength: 50 }), file: Type.String({ maxLength: 200 }) }),
      ),
    },
    async (request, reply) => {
      const { version, file } = request.params as { version: string; file: string };
      if (version !== VERSION) throw notFound();
      return send(request, reply, asset(file), true);
    },
  );
  app.get(
    '/array/:token/array.js',
    {
      config: { scope: PUBLIC },
      schema: schema(
        "posthog-js with the project's config",
        Type.Object({ token: Type.String({ maxLength: 200 }) }),
      ),
    },
    async (request, reply) => {
      const team = await resolveTeam((request.params as { token: string }).token);
      const config = remoteConfig(team, await configState(team)) as Record<string, unknown>;
      const body = `${configScript(team.apiToken, config)}\n${asset('array.js').body.toString('utf8')}`;
      return reply
        .type('application/javascript; charset=utf-8')
        .header('Cache-Control', 'public, max-age=0, must-revalidate')
        .header('Access-Control-Allow-Origin', '*')
        .send(body);
    },
  );
};

export const POSTHOG_JS_VERSION = VERSION;
