import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  CSRF_COOKIE,
  csrfTokenFor,
  endSession,
  type LoginLimits,
  login,
  SESSION_COOKIE,
} from '../domain/accounts/login-sessions.js';
import { AUTHENTICATED, PUBLIC } from '../domain/scopes.js';
import { sessionToken } from '../server/auth.js';
import type { Counters } from '../store/shared/counters.js';
import type { ApiPlugin } from './context.js';

const tags = ['sessions'];

/**
 * The session cookie is HttpOnly and SameSite=Lax: scripts never see it and other sites' forms do
 * not send it. Its CSRF companion is readable by our page, which echoes it on unsafe requests.
 */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, expires: Date) {
  const common = { path: '/', sameSite: 'lax', secure: request.protocol === 'https', expires } as const;
  reply.setCookie(SESSION_COOKIE, token, { ...common, httpOnly: true });
  reply.setCookie(CSRF_COOKIE, csrfTokenFor(token), { ...common, httpOnly: false });
}

const LoginBody = Type.Object(
  {
    email: Type.String({ maxLength: 254 }),
    password: Type.String({ maxLength: 1024 }),
  },
  { additionalProperties: false },
);

export const sessionRoutes: ApiPlugin<{ counters: Counters; loginLimits: LoginLimits }> = async (
  app,
  { deps, counters, loginLimits },
) => {
  app.post(
    '/api/login/',
    {
      config: { scope: PUBLIC },
      schema: {
        tags,
        summary: 'Log in with email and password; sets the session cookie',
        description:
          'The cookie authenticates the personal API key endpoints, so a member without a key can mint ' +
          'one. Attempts are limited per address and per client (429 with Retry-After).',
        body: LoginBody,
        response: { 200: Type.Object({ success: Type.Boolean() }) },
      },
    },
    async (request, reply) => {
      const { token, expiresAt } = await login(deps, counters, loginLimits, request.body, request.ip);
      setSessionCookie(request, reply, token, expiresAt);
      return { success: true };
    },
  );

  app.post(
    '/api/logout/',
    {
      config: { scope: AUTHENTICATED },
      schema: { tags, summary: 'End the current session', response: { 204: Type.Null() } },
    },
    async (request, reply) => {
      const token = sessionToken(request, SESSION_COOKIE);
      if (token) await endSession(deps, token);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      reply.clearCookie(CSRF_COOKIE, { path: '/' });
      return reply.code(204).send(null);
    },
  );
};
